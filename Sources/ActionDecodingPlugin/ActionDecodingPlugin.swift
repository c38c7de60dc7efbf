import PackagePlugin

/// Generates what FeatureKit derives for a feature module (see `ActionCodegen`): the flat-action
/// decoder (actions then cross the plugin ABI without Codable's generic machinery), the action
/// catalogue from the `Action` enum's cases and comments, the members with defaults, and the
/// plugin's entry record. The feature's author writes none of it.
@main
struct ActionDecodingPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    guard let module = target as? SourceModuleTarget else { return [] }
    let inputs = module.sourceFiles(withSuffix: "swift").map(\.url)
    let output = context.pluginWorkDirectoryURL.appending(path: "\(module.name)+ActionDecoding.swift")
    return [
      .buildCommand(
        displayName: "Deriving the action decoder, catalogue and entry of \(module.name)",
        executable: try context.tool(named: "ActionCodegen").url,
        arguments: [output.path()] + inputs.map { $0.path() },
        inputFiles: inputs,
        outputFiles: [output]
      )
    ]
  }
}
