// A writer process for the cross-process and crash tests (not shipped).
//
//   LibraryWriter default-url                PhotoLibrary.defaultURL, as this process's environment makes it
//   LibraryWriter LIBRARY commit-loop SEED   random change blocks forever; prints each new token once durable
//   LibraryWriter LIBRARY commit N           N small commits, then exits
//   LibraryWriter LIBRARY use-after-block 0        a request kept after its block, then used: must trap
//   LibraryWriter LIBRARY task-after-block 0       a request used by a task of its block once the block returned: must trap
//   LibraryWriter LIBRARY request-outside-block 0  a request made outside any block: must trap
//
// With LIBRARY_WRITER_POSTGRES=<postgres:// URL> in the environment, LIBRARY is the directory of the library
// kept in that PostgreSQL database (what another machine sharing it opens).
import Foundation
import LibraryTestSupport
import PhotoLibrary

func emit(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "default-url" {
    emit(PhotoLibrary.defaultURL.path)
    exit(0)
}
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: LibraryWriter LIBRARY (commit-loop SEED | commit N)\n".utf8))
    exit(2)
}
let library = try ProcessInfo.processInfo.environment["LIBRARY_WRITER_POSTGRES"].flatMap(URL.init(string:)).map {
    try PhotoLibrary(postgres: $0, directory: URL(fileURLWithPath: arguments[1]))
} ?? PhotoLibrary(url: URL(fileURLWithPath: arguments[1]))
switch arguments[2] {
case "commit-loop":
    var changes = RandomChanges(seed: UInt64(arguments[3]) ?? 1)
    while true {
        do {
            try changes.performBlock(on: library, author: "writer")
        } catch let error as PhotoLibraryError {
            // Expected failures (duplicate membership…) leave the library unchanged.
            _ = error
        }
        emit(try library.currentChangeToken.stringValue)
    }
case "commit":
    for index in 0..<(Int(arguments[3]) ?? 1) {
        try library.performChangesAndWait(author: "writer") {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "from writer \(index)")
        }
        emit(try library.currentChangeToken.stringValue)
    }
case "use-after-block":
    var kept: AssetChangeRequest?
    try library.performChangesAndWait(author: "writer") { kept = Misuse.makeAsset() }
    kept!.isFavorite = true
    exit(0)
case "task-after-block":
    try Misuse.useFromATaskAfterTheBlock(library)
    exit(0)
case "request-outside-block":
    _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "outside")
    exit(0)
default:
    exit(2)
}
