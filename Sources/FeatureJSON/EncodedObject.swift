/// Members of a keyed container, shared between the container and its parent.
final class EncodedObject {
  var members: [String: EncodedNode] = [:]
}
