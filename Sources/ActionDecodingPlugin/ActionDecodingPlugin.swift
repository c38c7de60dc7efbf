import PackagePlugin

/// Generates the flat-action decoder of a feature module (see `ActionCodegen`): actions then cross
/// the plugin ABI without Codable's generic machinery, and the feature's author writes nothing.
@main
struct ActionDecodingPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let module = target as? SourceModuleTarget else { return [] }
    let inputs = module.sourceFiles(withSuffix: "swift").map(\.url)
    let output = context.pluginWorkDirectoryURL.appending(path: "\(module.name)+ActionDecoding.swift")
    return [
      .buildCommand(
        displayName: "Generating the action decoder of \(module.name)",
        executable: try context.tool(named: "ActionCodegen").url,
        arguments: [output.path()] + inputs.map { $0.path() },
        inputFiles: inputs,
        outputFiles: [output]
      )
    ]
  }
}
