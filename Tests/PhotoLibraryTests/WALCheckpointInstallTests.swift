import LibraryStorage
import Testing

@testable import PhotoLibrary

@Suite("A SQLite library's checkpoints")
struct WALCheckpointInstallTests {
    @Test("The writer of a SQLite library reports its commits to the library's checkpointer, not to SQLite's automatic checkpoint")
    func writerHasTheCheckpointer() throws {
        let test = try TestLibrary()
        let checkpointer = try #require((test.library.storage as? SQLiteEngine)?.checkpointer)
        try test.makeAssets(3)
        #expect(checkpointer.statistics.lastFrames > 0, "the writer's commits never reached the checkpointer's hook")
        #expect(checkpointer.backgroundThreshold == 1_000)
    }
}
