import FeatureJSON
import Testing

/// 128-bit integers go through the containers' own integer paths (keyed, unkeyed and single
/// value), not the standard library's defaults: values that fit JSON's 64-bit integers come back
/// exact, the tree and byte encoders write the same text, and a wider one is refused by name.
@Suite("128-bit integers")
struct WideIntegerTests {
  struct Wide: Codable, Equatable {
    var signed: Int128
    var unsigned: UInt128
    var list: [Int128]
    var single: UInt128
  }

  let value = Wide(signed: Int128(Int64.min), unsigned: UInt128(Int64.max), list: [7, -7], single: 12_345)

  @Test func wideIntegersRoundTripInEveryContainer() throws {
    let tree = try JSONValueEncoder().encode(value)
    #expect(tree["single"] == 12_345)
    #expect(try JSONValueDecoder().decode(Wide.self, from: tree) == value)
    let bytes = try JSONBytesEncoder().encode(value)
    #expect(String(decoding: bytes, as: UTF8.self) == tree.serialized())
  }

  @Test func aWideIntegerAsTheWholeValue() throws {
    let tree = try JSONValueEncoder().encode(Int128(-42))
    #expect(tree == -42)
    #expect(try JSONValueDecoder().decode(Int128.self, from: tree) == -42)
    #expect(try JSONValueDecoder().decode([UInt128].self, from: [1, 2]) == [1, 2])
  }

  @Test(arguments: ["tree", "bytes"])
  func aWiderValueIsRefusedNamingItsField(encoder: String) {
    let wide = Wide(signed: 1 << 100, unsigned: 0, list: [], single: 0)
    #expect {
      if encoder == "tree" { _ = try JSONValueEncoder().encode(wide) } else { _ = try JSONBytesEncoder().encode(wide) }
    } throws: { error in
      "\(error)".contains("for \"signed\" does not fit in a 64-bit JSON integer")
    }
  }
}
