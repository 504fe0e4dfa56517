// A tree of real image files for the initial-scan benchmark (issue 12): JPEGs with EXIF (some with XMP, GPS
// or a rotation), HEICs with EXIF and PNGs, made once by libvips and exiftool from a few generated bases,
// then copied with bytes that make each file unique. Built once and kept under /tmp between runs.
import Foundation

extension SyncFixtures {
    /// How many files of each kind the image tree holds, in folders of 200: 70 % JPEG, 20 % HEIC, 10 % PNG.
    public static let imageTreeFileCount = 20_000

    /// 20,000 image files (about 0.9 GB) in 100 folders of 200.
    public static var imageTree: URL {
        build("images-20k") { root in
            let bases = try ImageBases.make(in: base.appending(path: "image-bases"))
            for index in 0..<imageTreeFileCount {
                let folder = root.appending(path: String(format: "%03d", index / 200))
                if index % 200 == 0 { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
                let (name, bytes) = bases.file(index)
                try Data(bytes).write(to: folder.appending(path: name))
            }
        }
    }
}

/// The base images, and how each file of the tree is made unique from one of them (a JPEG comment segment
/// after the start marker, a PNG text chunk after the header, an ISO-BMFF `free` box at the end of a HEIC).
struct ImageBases {
    let jpegs: [[UInt8]]
    let pngs: [[UInt8]]
    let heics: [[UInt8]]

    func file(_ index: Int) -> (name: String, bytes: [UInt8]) {
        let tag = Array("photosync benchmark file \(index)".utf8)
        switch index % 10 {
        case 0..<7:
            let jpeg = jpegs[index % jpegs.count]
            let segment: [UInt8] = [0xFF, 0xFE] + bigEndian(UInt16(tag.count + 2)) + tag
            return (String(format: "IMG_%05d.jpg", index), Array(jpeg[0..<2]) + segment + jpeg[2...])
        case 7..<9:
            let heic = heics[index % heics.count]
            return (String(format: "IMG_%05d.heic", index), heic + bigEndian(UInt32(tag.count + 8)) + Array("free".utf8) + tag)
        default:
            let png = pngs[index % pngs.count]
            let chunk = Array("tEXt".utf8) + Array("Comment".utf8) + [0] + tag
            let header = 8 + 25  // The signature, then IHDR (length, type, 13 bytes, CRC).
            return (
                String(format: "IMG_%05d.png", index),
                Array(png[0..<header]) + bigEndian(UInt32(chunk.count - 4)) + chunk + bigEndian(crc32(chunk)) + png[header...]
            )
        }
    }

    /// Makes the bases with `vips` and `exiftool` (Debian's libvips-tools and libimage-exiftool-perl).
    static func make(in directory: URL) throws -> ImageBases {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = { (name: String) in directory.appending(path: name).path }
        let sizes = [(1024, 768), (800, 600), (1280, 960), (640, 480), (1600, 1200), (768, 1024)]
        var jpegs: [String] = []
        var pngs: [String] = []
        for (index, (width, height)) in sizes.enumerated() {
            for cell in [48, 96] {
                let number = jpegs.count + 1
                // Smooth noise in two channels: compresses like a photograph rather than like random bytes.
                try vips("perlin", path("p.v"), "\(width)", "\(height)", "--cell-size", "\(cell)", "--seed", "\(number)")
                try vips("linear", path("p.v"), path("r.v"), "90", "120", "--uchar")
                try vips("perlin", path("p.v"), "\(width)", "\(height)", "--cell-size", "\(cell * 2)", "--seed", "\(number + 100)")
                try vips("linear", path("p.v"), path("g.v"), "80", "130", "--uchar")
                try vips("bandjoin", "\(path("r.v")) \(path("g.v")) \(path("r.v"))", path("rgb.v"))
                let jpeg = path("base\(number).jpg")
                try vips("copy", path("rgb.v"), jpeg + "[Q=85]")
                try exiftool(metadata(number) + [jpeg])
                jpegs.append(jpeg)
                if cell == 48 {
                    try vips("resize", path("rgb.v"), path("small.v"), index % 2 == 0 ? "0.25" : "0.2")
                    pngs.append(path("base\(number).png"))
                    try vips("copy", path("small.v"), pngs.last!)
                }
            }
        }
        // HEICs keep their JPEG's EXIF.
        var heics: [String] = []
        for number in [2, 4, 6, 8] {
            heics.append(path("base\(number).heic"))
            try vips("heifsave", path("base\(number).jpg"), heics.last!, "--Q", "50")
        }
        for scratch in ["p.v", "r.v", "g.v", "rgb.v", "small.v"] { try? FileManager.default.removeItem(atPath: path(scratch)) }
        let read = { (file: String) in [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) }
        return ImageBases(jpegs: try jpegs.map(read), pngs: try pngs.map(read), heics: try heics.map(read))
    }

    /// A camera's EXIF, with GPS on every second base, XMP on every third, a rotation on every fourth.
    private static func metadata(_ number: Int) -> [String] {
        var arguments = [
            "-Make=Canon", "-Model=EOS \(number)", "-DateTimeOriginal=2023:0\(number % 9 + 1):1\(number % 9) 10:2\(number % 6):00",
            "-OffsetTimeOriginal=+02:00", "-ExposureTime=1/125", "-FNumber=4.0", "-ISO=200",
        ]
        if number % 2 == 0 {
            arguments += ["-GPSLatitude=48.85", "-GPSLatitudeRef=N", "-GPSLongitude=2.35", "-GPSLongitudeRef=E", "-GPSAltitude=35"]
        }
        if number % 3 == 0 { arguments += ["-XMP-dc:Subject=holiday", "-XMP-xmp:Rating=4", "-XMP-photoshop:DateCreated=2023:05:01"] }
        if number % 4 == 0 { arguments += ["-Orientation#=6"] }
        return ["-q", "-overwrite_original"] + arguments
    }

    private static func vips(_ arguments: String...) throws {
        guard try SyncFixtures.run("/usr/bin/vips", arguments) == 0 else { throw FixtureError("vips \(arguments.joined(separator: " ")) failed") }
    }

    private static func exiftool(_ arguments: [String]) throws {
        guard try SyncFixtures.run("/usr/bin/exiftool", arguments) == 0 else { throw FixtureError("exiftool failed") }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// The CRC-32 of PNG chunks (ISO 3309, reflected, polynomial 0xEDB88320).
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
}
