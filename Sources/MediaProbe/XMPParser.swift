internal import CExpat

/// Parses XMP packets with Expat (the Debian `libexpat1-dev` library), namespaces resolved, into
/// ``XMPValues``.
///
/// Why Expat: it is a small, streaming, well-fuzzed XML parser with namespace processing, which is all XMP
/// reading needs; exempi and libgexiv2 would bring a C++ metadata toolkit (and its own file parsers) to read
/// a dozen properties. Expat never loads external entities unless asked, and bounds entity expansion
/// ("billion laughs"); on top of that a packet with a document type declaration is refused outright (XMP
/// has none), and a packet is parsed only up to the end of its root element (what follows — padding, the
/// closing `<?xpacket?>` — is not XML to check).
///
/// Complexity: one pass over the packet, O(n); allocations: the Expat parser and its buffers in the thread's
/// ``ParseArena``, one small text buffer, plus the strings of the properties kept.
enum XMPParser {
    /// Why a packet could not be read.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not well-formed XML: Expat's message and the byte offset where it stopped.
        case notWellFormed(message: String, offset: Int)
        /// A `<!DOCTYPE…>` (entity declarations), which XMP never has.
        case documentTypeDeclaration
        /// Well-formed XML without an `rdf:RDF` element: not XMP.
        case noRDF

        var description: String {
            switch self {
            case .notWellFormed(let message, let offset): "not well-formed XML at byte \(offset): \(message)"
            case .documentTypeDeclaration: "a document type declaration, which XMP does not allow"
            case .noRDF: "no rdf:RDF element"
            }
        }
    }

    /// Parses one packet. An empty packet (nothing but blanks and NULs) has no values and no failure.
    static func parse(_ packet: [UInt8]) -> Result<XMPValues, Failure> {
        packet.withUnsafeBytes { parse(trimmed($0)) }
    }

    /// Parses one packet held in part of a larger buffer (a JPEG segment, a PNG chunk).
    static func parse(_ packet: ArraySlice<UInt8>) -> Result<XMPValues, Failure> {
        packet.withUnsafeBytes { parse(trimmed($0)) }
    }

    /// The packet without leading blanks and trailing blanks and NULs (some writers pad with NULs).
    private static func trimmed(_ packet: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        func padding(_ byte: UInt8) -> Bool { byte == 0 || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = packet.firstIndex(where: { !padding($0) }) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let last = packet.lastIndex { !padding($0) }!
        return UnsafeRawBufferPointer(rebasing: packet[first...last])
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<XMPValues, Failure> {
        guard !bytes.isEmpty else { return .success(XMPValues()) }
        return ParseArena.scoped { parseInArena(bytes) }
    }

    /// Expat's memory on this thread's ``ParseArena``: the parser and its buffers live for one packet.
    private static var arenaMemory: XML_Memory_Handling_Suite {
        XML_Memory_Handling_Suite(
            malloc_fcn: { size in ParseArena.allocateInCurrent(size, zeroed: false) },
            realloc_fcn: { pointer, size in ParseArena.reallocateInCurrent(pointer, size) },
            free_fcn: { _ in })
    }

    private static func parseInArena(_ bytes: UnsafeRawBufferPointer) -> Result<XMPValues, Failure> {
        // The namespace separator: a space, which cannot occur in a namespace URI or a local name.
        var memory = arenaMemory
        var separator = CChar(UInt8(ascii: " "))
        guard let parser = XML_ParserCreate_MM(nil, &memory, &separator) else {
            return .failure(.notWellFormed(message: "out of memory", offset: 0))
        }
        defer { XML_ParserFree(parser) }
        let state = XMPParseState(parser: parser)
        let unmanaged = Unmanaged.passRetained(state)
        defer { unmanaged.release() }
        XML_SetUserData(parser, unmanaged.toOpaque())
        XML_SetElementHandler(parser, xmpStartElement, xmpEndElement)
        XML_SetCharacterDataHandler(parser, xmpCharacterData)
        XML_SetStartDoctypeDeclHandler(parser, xmpDoctype)
        var offset = 0
        var status = XML_STATUS_OK
        // Expat takes an Int32 length: feed large packets in pieces (they are bounded by the probe anyway).
        while offset < bytes.count, status == XML_STATUS_OK {
            let length = min(bytes.count - offset, 1 << 20)
            let isFinal: Int32 = offset + length == bytes.count ? 1 : 0
            status = XML_Parse(
                parser, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(length),
                isFinal)
            offset += length
        }
        if state.refusedDoctype { return .failure(.documentTypeDeclaration) }
        if status == XML_STATUS_ERROR, !state.rootClosed {
            let code = XML_GetErrorCode(parser)
            let message = XML_ErrorString(code).map { String(cString: $0) } ?? "error \(code.rawValue)"
            return .failure(.notWellFormed(message: message, offset: Int(XML_GetCurrentByteIndex(parser))))
        }
        guard state.sawRDF else { return .failure(.noRDF) }
        return .success(state.values)
    }
}

// MARK: - Expat callbacks

private func xmpState(_ userData: UnsafeMutableRawPointer?) -> XMPParseState {
    Unmanaged<XMPParseState>.fromOpaque(userData!).takeUnretainedValue()
}

private func xmpStartElement(
    _ userData: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?,
    _ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) {
    guard let name else { return }
    xmpState(userData).start(XMPName(name), attributes: attributes)
}

private func xmpEndElement(_ userData: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?) {
    xmpState(userData).end()
}

private func xmpCharacterData(_ userData: UnsafeMutableRawPointer?, _ text: UnsafePointer<CChar>?, _ length: Int32) {
    guard let text, length > 0 else { return }
    xmpState(userData).characters(UnsafeRawBufferPointer(start: text, count: Int(length)))
}

private func xmpDoctype(
    _ userData: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?, _ systemID: UnsafePointer<CChar>?,
    _ publicID: UnsafePointer<CChar>?, _ hasInternalSubset: Int32
) {
    let state = xmpState(userData)
    state.refusedDoctype = true
    XML_StopParser(state.parser, XML_FALSE)
}
