import Foundation
import SeededRandom

/// Real photos for the gallery's tests: little landscapes (a sky, a sun, ridges of hills, a lake) drawn here,
/// encoded as JPEG by `vips` and dated with `exiftool` (EXIF `DateTimeOriginal`, so they fall on the days
/// the tests choose) — decodable images that thumbnails are made of, each one different.
enum Pictures {
    /// The colours of a landscape: sky top and bottom, sun, the far and near hills, the water.
    struct Palette {
        let skyTop: SIMD3<Double>, skyBottom: SIMD3<Double>, sun: SIMD3<Double>, far: SIMD3<Double>, near: SIMD3<Double>, water: SIMD3<Double>

        static let all: [Palette] = [
            Palette(skyTop: [0.16, 0.20, 0.45], skyBottom: [0.99, 0.62, 0.38], sun: [1.00, 0.86, 0.55], far: [0.42, 0.30, 0.45], near: [0.18, 0.12, 0.22], water: [0.55, 0.38, 0.45]),
            Palette(skyTop: [0.25, 0.55, 0.90], skyBottom: [0.78, 0.90, 0.98], sun: [1.00, 0.98, 0.85], far: [0.45, 0.62, 0.55], near: [0.20, 0.42, 0.25], water: [0.25, 0.50, 0.70]),
            Palette(skyTop: [0.98, 0.55, 0.55], skyBottom: [1.00, 0.85, 0.60], sun: [1.00, 0.97, 0.80], far: [0.80, 0.50, 0.45], near: [0.45, 0.25, 0.30], water: [0.85, 0.55, 0.50]),
            Palette(skyTop: [0.03, 0.05, 0.15], skyBottom: [0.15, 0.22, 0.40], sun: [0.92, 0.94, 1.00], far: [0.10, 0.14, 0.25], near: [0.04, 0.06, 0.10], water: [0.10, 0.15, 0.30]),
            Palette(skyTop: [0.55, 0.75, 0.85], skyBottom: [0.95, 0.93, 0.80], sun: [1.00, 1.00, 0.90], far: [0.60, 0.65, 0.50], near: [0.40, 0.45, 0.20], water: [0.45, 0.62, 0.65]),
            Palette(skyTop: [0.35, 0.20, 0.50], skyBottom: [0.95, 0.45, 0.35], sun: [1.00, 0.75, 0.40], far: [0.35, 0.20, 0.35], near: [0.12, 0.08, 0.15], water: [0.50, 0.28, 0.35]),
        ]
    }

    /// A picture to make: its file name, the local capture time (`2024:06:01 10:00:00`), its look.
    struct Spec {
        let name: String
        let taken: String
        let seed: Int
    }

    /// Writes the pictures into `folder` (made in a staging folder beside it first, then moved in: the
    /// watcher sees finished files).
    static func make(_ specs: [Spec], in folder: URL, width: Int = 640, height: Int = 427) throws {
        let staged = try stage(specs, beside: folder, width: width, height: height)
        defer { try? FileManager.default.removeItem(at: staged) }
        for spec in specs {
            try FileManager.default.moveItem(at: staged.appending(path: spec.name), to: folder.appending(path: spec.name))
        }
    }

    /// Makes the pictures in a new staging folder beside `folder` (the same file system, so moving one in is
    /// a rename); its URL. The caller removes it.
    static func stage(_ specs: [Spec], beside folder: URL, width: Int = 640, height: Int = 427) throws -> URL {
        let staging = folder.deletingLastPathComponent().appending(path: ".staging-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        var exiftool = ["-q", "-overwrite_original"]
        for (index, spec) in specs.enumerated() {
            let raw = staging.appending(path: "\(index).ppm")
            try landscape(seed: spec.seed, width: width, height: height).write(to: raw)
            try run("/usr/bin/vips", ["copy", raw.path, staging.appending(path: spec.name).path + "[Q=88,strip]"])
            try FileManager.default.removeItem(at: raw)
            if index > 0 { exiftool.append("-execute") }
            exiftool += ["-DateTimeOriginal=\(spec.taken)", "-OffsetTimeOriginal=+01:00", staging.appending(path: spec.name).path]
        }
        try run("/usr/bin/exiftool", exiftool)
        return staging
    }

    /// One landscape as a binary PPM.
    static func landscape(seed: Int, width: Int, height: Int) -> Data {
        let palette = Palette.all[seed % Palette.all.count]
        var random = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        let sun = (x: 0.2 + 0.6 * Double.random(in: 0..<1, using: &random), y: 0.18 + 0.2 * Double.random(in: 0..<1, using: &random), r: 0.05 + 0.04 * Double.random(in: 0..<1, using: &random))
        let horizon = 0.62 + 0.08 * Double.random(in: 0..<1, using: &random)
        let waves = (0..<6).map { _ in (frequency: 2 + 9 * Double.random(in: 0..<1, using: &random), phase: 6.3 * Double.random(in: 0..<1, using: &random), size: 0.015 + 0.03 * Double.random(in: 0..<1, using: &random)) }
        func ridge(_ x: Double, _ layer: Double) -> Double {
            let base = horizon - (layer == 0 ? 0.22 : 0.1)
            return base + waves.enumerated().reduce(0) { sum, wave in
                sum + wave.element.size * (layer == 0 ? 1.4 : 1) * sin(wave.element.frequency * (x + layer * 0.37) * 3.14 + wave.element.phase)
            }
        }
        var bytes = Array("P6\n\(width) \(height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + width * height * 3)
        for row in 0..<height {
            let y = Double(row) / Double(height)
            for column in 0..<width {
                let x = Double(column) / Double(width)
                bytes += pixel(x: x, y: y, aspect: Double(width) / Double(height), palette: palette, sun: sun, horizon: horizon, ridge: ridge)
            }
        }
        return Data(bytes)
    }

    private static func pixel(
        x: Double, y: Double, aspect: Double, palette: Palette, sun: (x: Double, y: Double, r: Double), horizon: Double,
        ridge: (Double, Double) -> Double
    ) -> [UInt8] {
        var colour: SIMD3<Double>
        if y < horizon {
            let t = y / horizon
            colour = palette.skyTop * (1 - t) + palette.skyBottom * t
            let distance = (((x - sun.x) * aspect) * ((x - sun.x) * aspect) + (y - sun.y) * (y - sun.y)).squareRoot()
            let glow = max(0, 1 - distance / (sun.r * 4))
            colour = colour * (1 - glow * 0.5) + palette.sun * glow * 0.5
            if distance < sun.r { colour = palette.sun }
            if y > ridge(x, 0) { colour = palette.far * 0.85 + colour * 0.15 }
            if y > ridge(x, 1) { colour = palette.near }
        } else {
            let depth = (y - horizon) / (1 - horizon)
            let shimmer = 0.04 * sin(y * 260 + x * 9)
            colour = palette.water * (1 - depth * 0.4) + palette.skyBottom * (0.25 - depth * 0.2) + SIMD3(repeating: shimmer)
        }
        let clamped = colour.clamped(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1)) * 255
        return [UInt8(clamped.x), UInt8(clamped.y), UInt8(clamped.z)]
    }

    private static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
