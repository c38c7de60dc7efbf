extension ConformanceSuite {
  /// `render`: the view of a fresh instance, and of every state a catalogue walk reaches
  /// (emitted actions included), renders with FH_OK as UTF-8 text free of control characters.
  static func checkRender(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    let fresh = try run.makeInstance()
    try checkView(of: fresh, after: "create")
    fresh.destroy()
    _ = try CatalogueWalk.run(run, catalogue: catalogue) { visit throws(CheckFailure) in
      if visit.settled { run.progress("render after \(visit.label)") }
      try checkView(of: visit.instance, after: visit.label)
    }
  }

  private static func checkView(of instance: ConformanceInstance, after label: String) throws(CheckFailure) {
    let view = instance.render()
    guard view.isOK else { throw CheckFailure("render after \(label) returned \(view.described)") }
    if let problem = viewProblem(view.output) { throw CheckFailure("the view after \(label) \(problem)") }
    try checkStructuredView(of: instance, text: view.output, after: label)
  }

  /// `fh.structured_view/1`, when the plugin offers it: valid items whose lines (each image as
  /// its alternative text) are exactly the text render returned.
  private static func checkStructuredView(
    of instance: ConformanceInstance, text: [UInt8], after label: String
  ) throws(CheckFailure) {
    guard let answer = instance.renderStructured() else { return }
    let place = "the structured view (fh.structured_view/1) after \(label)"
    guard answer.isOK else { throw CheckFailure("\(place) returned \(answer.described)") }
    guard let json = String(validating: answer.output, as: UTF8.self) else {
      throw CheckFailure("\(place) is not valid UTF-8: \(ConformanceText.quote(bytes: answer.output))")
    }
    let view: StructuredView
    do {
      view = try StructuredView.parse(json)
    } catch {
      throw CheckFailure("\(place) \(error.message): \(ConformanceText.quote(json, limit: 120))")
    }
    if let problem = viewProblem(Array(view.text.utf8)) { throw CheckFailure("\(place) \(problem)") }
    let rendered = String(decoding: text, as: UTF8.self)
    guard view.text == rendered else {
      let lines = view.text.split(separator: "\n", omittingEmptySubsequences: false)
      let expected = rendered.split(separator: "\n", omittingEmptySubsequences: false)
      let index =
        zip(lines, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(lines.count, expected.count)
      let got = index < lines.count ? ConformanceText.quote(String(lines[index])) : "no line"
      let want = index < expected.count ? ConformanceText.quote(String(expected[index])) : "no line"
      throw CheckFailure(
        "\(place) differs from render at line \(index + 1): \(got), render has \(want) "
          + "(each image's \"alt\" must be the line render shows for it)")
    }
  }

  /// Why `view` is not plain text for the line renderer, or nil: it must be UTF-8, and hold no
  /// control character but line feed and tab (so no ESC sequence, no CSI, no carriage return).
  public static func viewProblem(_ view: [UInt8]) -> String? {
    guard let text = String(validating: view, as: UTF8.self) else {
      return "is not valid UTF-8: \(ConformanceText.quote(bytes: view))"
    }
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var column = 1
      for scalar in line.unicodeScalars {
        if scalar != "\t" && ConformanceText.isControl(scalar) {
          let code = String(scalar.value, radix: 16, uppercase: true)
          return "holds the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) "
            + "at line \(index + 1), column \(column): \(ConformanceText.quote(String(line)))"
        }
        column += 1
      }
    }
    return nil
  }
}
