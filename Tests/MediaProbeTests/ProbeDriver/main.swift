// A driver for measuring the probe's cost per file with callgrind (not shipped, not a test).
//
//   ProbeDriver REPEAT FILE...   probes every FILE once to warm up (libheif, libexif, time zones), then
//                                REPEAT more times inside `mediaprobe_measured_loop`.
//
// Instruction counts of the probe alone, per file:
//   swift build -c release --product ProbeDriver
//   valgrind --tool=callgrind --toggle-collect=mediaprobe_measured_loop \
//       .build/release/ProbeDriver 20 Tests/MediaProbeTests/Fixtures/camera.jpg
//   (the total "Collected" instruction count divided by 20)
import Foundation
import MediaProbe

let arguments = CommandLine.arguments
guard arguments.count >= 3, let repeats = Int(arguments[1]), repeats > 0 else {
    FileHandle.standardError.write(Data("usage: ProbeDriver REPEAT FILE...\n".utf8))
    exit(2)
}
let files = Array(arguments.dropFirst(2))
let zone = TimeZone(identifier: "UTC")!
let now = Date()

/// Probes every file `repeats` times; returns a checksum so that nothing is optimised away.
@_silgen_name("mediaprobe_measured_loop")
@inline(never)
func measuredLoop(_ files: [String], repeats: Int) -> Int {
    var checksum = 0
    for _ in 0..<repeats {
        for file in files {
            guard let result = try? MediaProbe.probe(fileAt: file, timeZone: zone, now: now) else { continue }
            checksum &+= (result.metadata.pixelWidth ?? 0) &+ result.metadata.problems.count
        }
    }
    return checksum
}

let warm = measuredLoopWarmUp()
func measuredLoopWarmUp() -> Int {
    var checksum = 0
    for file in files {
        guard let result = try? MediaProbe.probe(fileAt: file, timeZone: zone, now: now) else {
            FileHandle.standardError.write(Data("cannot probe \(file)\n".utf8))
            continue
        }
        checksum &+= result.metadata.pixelWidth ?? 0
    }
    return checksum
}
print(warm &+ measuredLoop(files, repeats: repeats))
