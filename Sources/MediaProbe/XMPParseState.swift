internal import CExpat
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A namespace-resolved XML name as Expat reports it (`namespace-URI local-name`, separated by a space),
/// viewed in place: nothing is copied to compare it.
struct XMPName {
    let namespace: UnsafeRawBufferPointer
    let local: UnsafeRawBufferPointer

    init(_ name: UnsafePointer<CChar>) {
        let length = strlen(name)
        let raw = UnsafeRawBufferPointer(start: name, count: length)
        if let space = raw.firstIndex(of: 0x20) {
            namespace = UnsafeRawBufferPointer(rebasing: raw[..<space])
            local = UnsafeRawBufferPointer(rebasing: raw[(space + 1)...])
        } else {
            namespace = UnsafeRawBufferPointer(start: name, count: 0)
            local = raw
        }
    }

    func `is`(_ namespace: StaticString, _ local: StaticString) -> Bool {
        Self.equal(self.local, local) && Self.equal(self.namespace, namespace)
    }

    static func equal(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount
            && (bytes.count == 0 || memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0)
    }
}

/// The namespaces XMP reading needs.
enum XMPNamespace {
    static let rdf: StaticString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xml: StaticString = "http://www.w3.org/XML/1998/namespace"
    static let gPano: StaticString = "http://ns.google.com/photos/1.0/panorama/"
    static let gCamera: StaticString = "http://ns.google.com/photos/1.0/camera/"
    static let exif: StaticString = "http://ns.adobe.com/exif/1.0/"
    static let tiff: StaticString = "http://ns.adobe.com/tiff/1.0/"
    static let xmp: StaticString = "http://ns.adobe.com/xap/1.0/"
    static let photoshop: StaticString = "http://ns.adobe.com/photoshop/1.0/"
}

/// The properties kept in ``XMPValues``.
enum XMPProperty: Int, CaseIterable {
    case projectionType, usePanoramaViewer, userComment, dateTimeOriginal, dateCreated, createDate, make, model
    case burstID, motionPhoto, microVideo

    var name: (namespace: StaticString, local: StaticString) {
        switch self {
        case .projectionType: (XMPNamespace.gPano, "ProjectionType")
        case .usePanoramaViewer: (XMPNamespace.gPano, "UsePanoramaViewer")
        case .userComment: (XMPNamespace.exif, "UserComment")
        case .dateTimeOriginal: (XMPNamespace.exif, "DateTimeOriginal")
        case .dateCreated: (XMPNamespace.photoshop, "DateCreated")
        case .createDate: (XMPNamespace.xmp, "CreateDate")
        case .make: (XMPNamespace.tiff, "Make")
        case .model: (XMPNamespace.tiff, "Model")
        case .burstID: (XMPNamespace.gCamera, "BurstID")
        case .motionPhoto: (XMPNamespace.gCamera, "MotionPhoto")
        case .microVideo: (XMPNamespace.gCamera, "MicroVideo")
        }
    }

    /// The property a name stands for, if it is one of ours.
    static func named(_ name: XMPName) -> XMPProperty? {
        all.first { name.is($0.name.namespace, $0.name.local) }
    }

    private static let all = allCases
}

/// The RDF reading state of one packet, driven by the Expat callbacks.
///
/// Depths are counted from the `rdf:RDF` element (R): top-level nodes (`rdf:Description`) at R+1, their
/// property elements at R+2, an `rdf:Alt`/`rdf:Seq`/`rdf:Bag` value at R+3 and its `rdf:li` items at R+4.
/// Anything deeper, or any other structure, is not a value this reader keeps.
final class XMPParseState {
    let parser: XML_Parser
    private(set) var values = XMPValues()
    private(set) var sawRDF = false
    /// Set when the root element closed: the parser was stopped there on purpose.
    private(set) var rootClosed = false
    var refusedDoctype = false

    private var depth = 0
    private var rdfDepth = -1
    /// The property element being read (at R+2), if it is one of ours.
    private var property: XMPProperty?
    /// Whether that property element has child elements (a container or a structure).
    private var propertyHasChildren = false
    /// Whether its child (at R+3) is an `rdf:Alt`, `rdf:Seq` or `rdf:Bag`.
    private var inContainer = false
    /// Whether an `rdf:li` (at R+4) is being read, and whether it is the `x-default` one.
    private var inItem = false
    private var itemIsDefault = false
    /// Whether the value of the current property came from the `x-default` item (which no later item
    /// replaces).
    private var tookDefault = false
    private var text: [UInt8] = []
    /// The properties assigned so far, one bit per ``XMPProperty`` raw value.
    private var assigned: UInt32 = 0

    /// The longest value kept (longer text is cut; no property read here is long).
    static let maximumValueLength = 4096

    init(parser: XML_Parser) {
        self.parser = parser
        text.reserveCapacity(128)
    }

    func start(_ name: XMPName, attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) {
        depth += 1
        if rdfDepth < 0 {
            if name.is(XMPNamespace.rdf, "RDF") {
                rdfDepth = depth
                sawRDF = true
            }
            return
        }
        switch depth - rdfDepth {
        case 1:
            readAttributeProperties(attributes)
        case 2:
            property = XMPProperty.named(name)
            propertyHasChildren = false
            tookDefault = false
            text.removeAll(keepingCapacity: true)
        case 3:
            propertyHasChildren = true
            inContainer = property != nil
                && (name.is(XMPNamespace.rdf, "Alt") || name.is(XMPNamespace.rdf, "Seq")
                    || name.is(XMPNamespace.rdf, "Bag"))
        case 4 where inContainer && name.is(XMPNamespace.rdf, "li"):
            inItem = true
            itemIsDefault = Self.hasDefaultLanguage(attributes)
            text.removeAll(keepingCapacity: true)
        default:
            break
        }
    }

    func end() {
        defer { depth -= 1 }
        guard rdfDepth >= 0 else {
            if depth == 1 { stopAtRootEnd() }
            return
        }
        switch depth - rdfDepth {
        case 0:
            rdfDepth = -1
        case 2:
            if let property, !propertyHasChildren { assign(property, fromDefault: false) }
            property = nil
        case 3:
            inContainer = false
        case 4 where inItem:
            if let property, !tookDefault { assign(property, fromDefault: itemIsDefault) }
            inItem = false
        default:
            break
        }
        if depth == 1 { stopAtRootEnd() }
    }

    func characters(_ bytes: UnsafeRawBufferPointer) {
        let relative = depth - rdfDepth
        guard rdfDepth >= 0, property != nil,
            (relative == 2 && !propertyHasChildren) || (relative == 4 && inItem)
        else { return }
        text.append(contentsOf: bytes.prefix(Self.maximumValueLength - text.count))
    }

    /// The root element closed: what follows (padding, the closing `<?xpacket?>`) is not read.
    private func stopAtRootEnd() {
        rootClosed = true
        XML_StopParser(parser, XML_FALSE)
    }

    /// Properties written as attributes of a top-level node (`GPano:ProjectionType="equirectangular"`).
    private func readAttributeProperties(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) {
        guard var pair = attributes else { return }
        while let name = pair[0], let value = pair[1] {
            if let property = XMPProperty.named(XMPName(name)) {
                text.removeAll(keepingCapacity: true)
                let raw = UnsafeRawBufferPointer(start: value, count: strlen(value))
                text.append(contentsOf: raw.prefix(Self.maximumValueLength))
                assign(property, fromDefault: false)
            }
            pair += 2
        }
    }

    private static func hasDefaultLanguage(_ attributes: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Bool {
        guard var pair = attributes else { return false }
        while let name = pair[0], let value = pair[1] {
            if XMPName(name).is(XMPNamespace.xml, "lang") {
                return XMPName.equal(UnsafeRawBufferPointer(start: value, count: strlen(value)), "x-default")
            }
            pair += 2
        }
        return false
    }

    /// Keeps the text read as the property's value: the first occurrence wins, except that an `x-default`
    /// alternative replaces a first item that was not.
    private func assign(_ property: XMPProperty, fromDefault: Bool) {
        let bit = UInt32(1) << property.rawValue
        guard assigned & bit == 0 || (fromDefault && !tookDefault) else { return }
        let value = String(decoding: text, as: UTF8.self).trimmingASCIIBlanks()
        guard !value.isEmpty else { return }
        assigned |= bit
        if fromDefault { tookDefault = true }
        switch property {
        case .projectionType: values.panoramaProjection = value
        case .usePanoramaViewer: values.usePanoramaViewer = Self.boolean(value)
        case .userComment: values.userComment = value
        case .dateTimeOriginal: values.dateTimeOriginal = value
        case .dateCreated: values.dateCreated = value
        case .createDate: values.createDate = value
        case .make: values.make = value
        case .model: values.model = value
        case .burstID: values.burstIdentifier = value
        case .motionPhoto, .microVideo: values.isMotionPhoto = values.isMotionPhoto || Self.boolean(value) == true
        }
    }

    /// An XMP Boolean (`True`/`False`, as the specification writes it; also `1`/`0`).
    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }
}
