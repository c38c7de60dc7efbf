// Rendering of coding paths for error messages: `items[3].url`.

/// The index an error path component stands for, if it is an array position.
/// Foundation's own index keys read `Index 3`, so those are recognised too.
func arrayIndex(of key: any CodingKey) -> Int? {
  guard let index = key.intValue else { return nil }
  if let jsonKey = key as? JSONCodingKey {
    return jsonKey.isIndex ? index : nil
  }
  return key.stringValue == "Index \(index)" ? index : nil
}

/// ` for "count"`, ` for index 3`, or nothing at the top level: the part of
/// an error message that names where the problem is.
func locationPhrase(_ codingPath: [any CodingKey]) -> String {
  guard let last = codingPath.last else { return "" }
  if let index = arrayIndex(of: last) {
    return " for index \(index)"
  }
  return " for \"\(last.stringValue)\""
}

/// `items[3].url`-style rendering of a coding path; `(root)` when empty.
func pathDescription(_ codingPath: [any CodingKey]) -> String {
  var text = ""
  for key in codingPath {
    if let index = arrayIndex(of: key) {
      text += "[\(index)]"
    } else {
      if !text.isEmpty {
        text += "."
      }
      text += key.stringValue
    }
  }
  return text.isEmpty ? "(root)" : text
}
