import Foundation
import PackagePlugin

/// Embeds the numbered SQL migrations of `Schema/` (the single source of truth for the schema) into the
/// target as Swift string literals, so that an installed `photosync` binary needs no resource bundle.
@main
struct EmbedSchema: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        // PostgreSQL has its own migrations, in its own dialect: Schema/postgres/ (see its README.md). The sync
        // worker, a client of the library, has its own series: Schema/sync/ (see LibraryClientSchema).
        let schemaPath =
            switch target.name {
            case "PostgresStore": "Schema/postgres"
            case "SyncWorker": "Schema/sync"
            default: "Schema"
            }
        let schemaDirectory = context.package.directoryURL.appending(path: schemaPath).resolvingSymlinksInPath()
        let files = try FileManager.default
            .contentsOfDirectory(at: schemaDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSchema.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) schema migrations",
                executable: try context.tool(named: "SchemaEmbedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
