import Foundation
import PackagePlugin

/// Embeds the numbered SQL migrations of `Schema/` (the single source of truth for the schema) into the
/// target as Swift string literals, so that an installed `photosync` binary needs no resource bundle.
@main
struct EmbedSchema: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // PostgreSQL has its own migrations, in its own dialect: Schema/postgres/ (see its README.md). The sync
        // worker, a client of the library, has its own series: Schema/sync/ (see LibraryClientSchema), and the
        // same series in PostgreSQL's dialect, Schema/sync/postgres/, embedded beside it under its own name.
        switch target.name {
        case "PostgresStore": [try embed(context, "Schema/postgres")]
        case "SyncWorker":
            [
                try embed(context, "Schema/sync"),
                try embed(context, "Schema/sync/postgres", variable: "embeddedPostgresSchemaMigrations"),
            ]
        default: [try embed(context, "Schema")]
        }
    }

    /// The command embedding the migrations of one directory as the array `variable`.
    private func embed(
        _ context: PluginContext, _ schemaPath: String, variable: String = "embeddedSchemaMigrations"
    ) throws -> Command {
        let schemaDirectory = context.package.directoryURL.appending(path: schemaPath).resolvingSymlinksInPath()
        let files = try FileManager.default
            .contentsOfDirectory(at: schemaDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(schemaPath.replacingOccurrences(of: "/", with: "_")).swift")
        return .buildCommand(
            displayName: "Embedding \(files.count) schema migrations (\(schemaPath))",
            executable: try context.tool(named: "SchemaEmbedder").url,
            arguments: ["--variable", variable, output.path] + files.map(\.path),
            inputFiles: files,
            outputFiles: [output]
        )
    }
}
