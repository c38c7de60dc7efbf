import HostKit

#if canImport(Glibc)
  import Glibc
#endif

extension Console {
  /// The image views of an interactive run at a terminal that draws 24-bit colour (and allows
  /// colour: see `ImageViews.terminalDrawsImages`); nil elsewhere, so a pipe, `NO_COLOR`,
  /// `TERM=dumb` or a terminal without 24-bit colour gets every view as its text.
  func imageViews() -> ImageViews? {
    let environment = ChildProcess.currentEnvironment
    guard inputIsTerminal, outputIsTerminal, ImageViews.terminalDrawsImages(environment: environment),
      let executable = OwnExecutable.path, let folder = ImageCache.defaultFolder(environment: environment)
    else { return nil }
    return ImageViews(loader: ImageLoader.Settings(executable: executable, cache: ImageCache(folder: folder))) {
      TerminalSize.columns(of: STDOUT_FILENO) ?? 80
    }
  }
}
