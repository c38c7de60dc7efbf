import Foundation

/// Reads a local catalog file for `file://` endpoints.
enum KittenFile {
  static func read(_ path: String) throws(KittenLoadError) -> Data {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw KittenLoadError("cannot read file://\(path): no such file")
    }
    guard !isFolder.boolValue else {
      throw KittenLoadError("cannot read file://\(path): it is a folder")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw KittenLoadError("cannot read file://\(path): permission denied or unreadable")
    }
    return data
  }
}
