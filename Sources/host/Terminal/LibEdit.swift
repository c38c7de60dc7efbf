#if canImport(Glibc)
  import Glibc
#endif

/// The readline-compatible part of libedit (BSD licence), loaded at run time.
///
/// Loaded with `dlopen("libedit.so.2")` instead of linked: the host builds with no `-dev` package,
/// a pipe never loads it, and a machine without it still runs the host with plain line input.
/// `libedit2` is installed wherever the Swift toolchain runs (its REPL and LLDB use it).
/// Only the non-variadic readline calls are used, so Swift can call them through plain pointers.
// @unchecked Sendable: function pointers and addresses fixed once loaded; libedit's variables
// behind them are touched only on the main thread (`LineEditor`).
struct LibEdit: @unchecked Sendable {
  typealias Readline = @convention(c) (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
  typealias TextCall = @convention(c) (UnsafePointer<CChar>?) -> Int32
  typealias IntCall = @convention(c) (Int32) -> Int32
  typealias VoidCall = @convention(c) () -> Int32
  typealias VoidProcedure = @convention(c) () -> Void
  /// `int getc(FILE *)`: libedit reads every key through it; returns a character or -1 (end).
  typealias GetcFunction = @convention(c) (UnsafeMutablePointer<FILE>?) -> Int32
  /// `char **complete(const char *text, int start, int end)`.
  typealias CompletionFunction =
    @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?

  let readline: Readline
  let addHistory: TextCall
  let readHistory: TextCall
  let writeHistory: TextCall
  let stifleHistory: @convention(c) (Int32) -> Void
  let clearHistory: VoidProcedure
  let forcedUpdateDisplay: VoidCall
  /// `rl_set_prompt`: the prompt drawn from the next redisplay on.
  let setPrompt: TextCall
  /// `rl_resize_terminal`: libedit reads the terminal's size again.
  let resizeTerminal: VoidProcedure
  let initialize: VoidCall
  /// `rl_parse_and_bind`: one line of editrc syntax (`bind KEY FUNCTION`).
  let parseAndBind: TextCall
  /// Global variables, written before the first `readline`.
  let getcFunction: UnsafeMutablePointer<GetcFunction?>
  let attemptedCompletion: UnsafeMutablePointer<CompletionFunction?>
  let attemptedCompletionOver: UnsafeMutablePointer<Int32>
  let completionAppendCharacter: UnsafeMutablePointer<Int32>
  let catchSignals: UnsafeMutablePointer<Int32>
  let lineBuffer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  let point: UnsafeMutablePointer<Int32>
  let readlineName: UnsafeMutablePointer<UnsafePointer<CChar>?>
  let wordBreakCharacters: UnsafeMutablePointer<UnsafePointer<CChar>?>
  let completerWordBreakCharacters: UnsafeMutablePointer<UnsafePointer<CChar>?>

  /// libedit, or nil when it cannot be loaded (then the caller reads plain lines).
  static func load() -> LibEdit? {
    guard let handle = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL) else { return nil }
    func symbol<T>(_ name: String, as type: T.Type) -> T? {
      guard let address = dlsym(handle, name) else { return nil }
      return unsafeBitCast(address, to: type)
    }
    func variable<T>(_ name: String, as type: T.Type) -> UnsafeMutablePointer<T>? {
      dlsym(handle, name)?.assumingMemoryBound(to: type)
    }
    guard let readline = symbol("readline", as: Readline.self),
      let addHistory = symbol("add_history", as: TextCall.self),
      let readHistory = symbol("read_history", as: TextCall.self),
      let writeHistory = symbol("write_history", as: TextCall.self),
      let stifleHistory = symbol("stifle_history", as: (@convention(c) (Int32) -> Void).self),
      let clearHistory = symbol("clear_history", as: VoidProcedure.self),
      let forcedUpdateDisplay = symbol("rl_forced_update_display", as: VoidCall.self),
      let resizeTerminal = symbol("rl_resize_terminal", as: VoidProcedure.self),
      let setPrompt = symbol("rl_set_prompt", as: TextCall.self),
      let initialize = symbol("rl_initialize", as: VoidCall.self),
      let parseAndBind = symbol("rl_parse_and_bind", as: TextCall.self),
      let getcFunction = variable("rl_getc_function", as: GetcFunction?.self),
      let attemptedCompletion = variable("rl_attempted_completion_function", as: CompletionFunction?.self),
      let attemptedCompletionOver = variable("rl_attempted_completion_over", as: Int32.self),
      let completionAppendCharacter = variable("rl_completion_append_character", as: Int32.self),
      let catchSignals = variable("rl_catch_signals", as: Int32.self),
      let lineBuffer = variable("rl_line_buffer", as: UnsafeMutablePointer<CChar>?.self),
      let point = variable("rl_point", as: Int32.self),
      let readlineName = variable("rl_readline_name", as: UnsafePointer<CChar>?.self),
      let wordBreakCharacters = variable("rl_basic_word_break_characters", as: UnsafePointer<CChar>?.self),
      let completerWordBreakCharacters = variable(
        "rl_completer_word_break_characters", as: UnsafePointer<CChar>?.self)
    else { return nil }
    return LibEdit(
      readline: readline, addHistory: addHistory, readHistory: readHistory, writeHistory: writeHistory,
      stifleHistory: stifleHistory, clearHistory: clearHistory, forcedUpdateDisplay: forcedUpdateDisplay,
      setPrompt: setPrompt, resizeTerminal: resizeTerminal,
      initialize: initialize, parseAndBind: parseAndBind, getcFunction: getcFunction,
      attemptedCompletion: attemptedCompletion,
      attemptedCompletionOver: attemptedCompletionOver, completionAppendCharacter: completionAppendCharacter,
      catchSignals: catchSignals, lineBuffer: lineBuffer, point: point, readlineName: readlineName,
      wordBreakCharacters: wordBreakCharacters, completerWordBreakCharacters: completerWordBreakCharacters)
  }
}
