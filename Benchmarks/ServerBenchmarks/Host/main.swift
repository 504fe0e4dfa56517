// The server the ServerBenchmarks measure, in a process of its own (so that its memory is its own, and the
// 10,000 client connections of the benchmark don't share its descriptor limit).
//
//   ServerBenchmarkHost LIBRARY     serves LIBRARY on 127.0.0.1 and an ephemeral port; prints the port, then
//                                   runs until SIGTERM
import Foundation
import Logging
import PhotoLibrary
import PhotosyncServer
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

// 10,000 connections need more descriptors than the usual soft limit of 1024.
var limit = rlimit()
getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
limit.rlim_cur = limit.rlim_max
setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)

let library = try PhotoLibrary(url: URL(fileURLWithPath: CommandLine.arguments[1]))
var logger = Logger(label: "photosync.benchmark-host")
logger.logLevel = .error
let app = try buildApplication(library: library, options: ServerOptions(port: 0), logger: logger) { port in
    FileHandle.standardOutput.write(Data("\(port)\n".utf8))
}
try await ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm], logger: logger)).run()
