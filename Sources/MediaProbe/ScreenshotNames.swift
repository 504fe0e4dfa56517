/// Screenshot file names as the screenshot tools of the common systems write them, matched on the UTF-8
/// bytes of the file name (no string building, no Foundation search).
///
/// A name matches when its stem (the name without its extension) is
///
///     PREFIX [CONNECTOR] SEPARATOR DATE [SEPARATOR ANYTHING]     (the dated form)
///     PREFIX [" (" DIGITS ")"]                                    (the numbered form, Windows)
///
/// - PREFIX: `Screenshot`, `Screen Shot`, or a localised screenshot word macOS, GNOME or KDE use
///   (`Bildschirmfoto`, `Capture d’écran`, `Captura de pantalla`, `Снимок экрана`, `スクリーンショット`…);
///   ASCII letters in any case.
/// - CONNECTOR: the word GNOME puts before the date — `from`/`From` and its translations (`vom`, `du`,
///   `de`, `van`, `da`, `z`…) — with a separator before it.
/// - SEPARATOR: one space, `_` or `-`. DATE: `YYYY-MM-DD`, `YYYY_MM_DD` or `YYYYMMDD`, a real month and day of
///   a year 1990–2099. What follows the date (the time in any tool's spelling, an app name, a counter, a
///   display number) is not checked, but must be set off by a separator or a dot.
///
/// What each tool writes (all matched):
///
/// | Tool | File name |
/// |---|---|
/// | Android (SystemUI; Pixel, AOSP) | `Screenshot_20240105-101010.png`, `Screenshot_20240105-101010_Chrome.png` |
/// | Android 4.x, Xiaomi MIUI | `Screenshot_2014-01-05-10-10-10.png`, `Screenshot_2024-01-05-10-10-10-123_com.app.jpg` |
/// | Samsung One UI | `Screenshot_20240105_101010_Chrome.jpg` |
/// | macOS 10.14–12 / 13 and later | `Screen Shot 2022-01-05 at 10.10.10 AM.png` / `Screenshot 2024-01-05 at 10.10.10.png` |
/// | GNOME (gnome-screenshot, Shell 42+) | `Screenshot from 2024-01-05 10-10-10.png`, `Screenshot From 2024-01-05 10-10-10.png` |
/// | KDE Spectacle | `Screenshot_20240105_101010.png` |
/// | Xfce | `Screenshot_2024-01-05_10-10-10.png` |
/// | Windows 11 Snipping Tool / Win+PrtScn | `Screenshot 2024-01-05 101010.png` / `Screenshot (12).png`, `Screenshot.png` |
/// | ChromeOS | `Screenshot 2024-01-05 10.10.10 AM.png` |
///
/// iOS names screenshots like photos (`IMG_1234.PNG`): they are recognised by their EXIF or XMP
/// `UserComment` "Screenshot", not by name.
enum ScreenshotNames {
    /// The screenshot words, as the tools write them (ASCII letters compared in any case).
    static let prefixes: [[UInt8]] = [
        "Screenshot", "Screen Shot", "Bildschirmfoto", "Capture d’écran", "Capture d'écran",
        "Captura de pantalla", "Captura de tela", "Schermafbeelding", "Schermata", "Istantanea schermo",
        "Skärmavbild", "Skjermbilde", "Skærmbillede", "Näyttökuva", "Kuvakaappaus", "Zrzut ekranu",
        "Snímek obrazovky", "Снимок экрана", "Снимок_экрана", "スクリーンショット", "屏幕截图", "截屏", "螢幕截圖",
        "스크린샷",
    ].map { Array($0.utf8) }

    /// GNOME's "from" before the date, and its translations.
    static let connectors: [[UInt8]] = [
        "from", "vom", "von", "du", "de", "del", "da", "di", "van", "från", "fra", "z", "ze", "od", "от",
    ].map { Array($0.utf8) }

    /// Whether the last component of a path is a screenshot tool's file name (the rule above).
    static func matches(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { matches(stem: stem(of: $0)) }
    }

    /// Whether a name contains a screenshot word anywhere (weak evidence: `My screenshot.png`).
    static func mentionsScreenshot(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let name = stem(of: bytes)
            return prefixes.contains { word in
                guard word.count <= name.count else { return false }
                return (name.startIndex...(name.endIndex - word.count)).contains { startsWith(name[$0...], word) }
            }
        }
    }

    static func matches(stem name: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        guard let word = prefixes.first(where: { startsWith(name, $0) }) else { return false }
        var rest = name.dropFirst(word.count)
        if rest.isEmpty { return true }  // Windows' first "Screenshot.png"
        if numbered(rest) { return true }
        guard let separator = rest.first, isSeparator(separator) else { return false }
        rest = rest.dropFirst()
        if let connector = connectors.first(where: {
            startsWith(rest, $0) && rest.count > $0.count && isSeparator(rest[rest.startIndex + $0.count])
        }) {
            rest = rest.dropFirst(connector.count + 1)
        }
        return dated(rest)
    }

    /// ` (12)`: Windows numbers the screenshots of Win+PrtScn.
    private static func numbered(_ rest: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        guard rest.count >= 4, rest.first == 0x20, rest.dropFirst().first == UInt8(ascii: "("),
            rest.last == UInt8(ascii: ")")
        else { return false }
        let digits = rest.dropFirst(2).dropLast()
        return !digits.isEmpty && digits.count <= 6 && digits.allSatisfy(isDigit)
    }

    /// A date (`YYYY-MM-DD`, `YYYY_MM_DD`, `YYYYMMDD`), then the end or a separator or dot.
    private static func dated(_ rest: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        let bytes = Array(rest.prefix(11))
        let dateLength: Int
        let parts: (year: ArraySlice<UInt8>, month: ArraySlice<UInt8>, day: ArraySlice<UInt8>)
        if bytes.count >= 10, bytes[4] == bytes[7], bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: "_") {
            parts = (bytes[0..<4], bytes[5..<7], bytes[8..<10])
            dateLength = 10
        } else if bytes.count >= 8 {
            parts = (bytes[0..<4], bytes[4..<6], bytes[6..<8])
            dateLength = 8
        } else {
            return false
        }
        guard let year = number(parts.year), let month = number(parts.month), let day = number(parts.day),
            (1990...2099).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return false }
        guard rest.count > dateLength else { return true }
        let next = rest[rest.startIndex + dateLength]
        return isSeparator(next) || next == UInt8(ascii: ".")
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard digits.allSatisfy(isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// Whether `name` starts with `word`, ASCII letters compared in any case.
    private static func startsWith(_ name: UnsafeBufferPointer<UInt8>.SubSequence, _ word: [UInt8]) -> Bool {
        guard name.count >= word.count else { return false }
        var index = name.startIndex
        for expected in word {
            let byte = name[index]
            guard byte == expected || (isASCIILetter(byte) && byte | 0x20 == expected | 0x20) else { return false }
            index += 1
        }
        return true
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// The last path component without its extension (`a/Screenshot 1.2.png` → `Screenshot 1.2`).
    static func stem(of path: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>.SubSequence {
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let name = path[nameStart...]
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > nameStart else { return name }
        return name[..<dot]
    }
}
