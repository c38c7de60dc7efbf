/// Elements of an unkeyed container, shared between the container and its parent.
final class EncodedArray {
  var elements: [EncodedNode] = []
}
