/// Stands for an object created in the current change block: its ``localIdentifier`` is final and can be
/// stored, and it can be added to albums and folders in the same block.
public struct ObjectPlaceholder: LibraryObject {
    public let localIdentifier: String
}

extension ChangeSession {
    /// The session of the running change block, or a failure when there is none.
    static func active(function: StaticString = #function) -> ChangeSession? {
        current
    }
}
