// Byte constants and rendering shared by the parser and the serializer.

/// `0x0A`-style rendering used in parse error messages.
func hexByte(_ byte: UInt8) -> String {
  let digits = String(byte, radix: 16, uppercase: true)
  return byte < 0x10 ? "0x0\(digits)" : "0x\(digits)"
}

extension UInt8 {
  static let quote = UInt8(ascii: "\"")
  static let backslash = UInt8(ascii: "\\")
  static let slash = UInt8(ascii: "/")
  static let openBrace = UInt8(ascii: "{")
  static let closeBrace = UInt8(ascii: "}")
  static let openBracket = UInt8(ascii: "[")
  static let closeBracket = UInt8(ascii: "]")
  static let colon = UInt8(ascii: ":")
  static let comma = UInt8(ascii: ",")
  static let minus = UInt8(ascii: "-")
  static let plus = UInt8(ascii: "+")
  static let dot = UInt8(ascii: ".")
  static let asciiZero = UInt8(ascii: "0")
  static let asciiNine = UInt8(ascii: "9")
  static let space = UInt8(ascii: " ")
  static let tab = UInt8(ascii: "\t")
  static let newline = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")
}
