/// Stands for an object created in the current change block: its ``localIdentifier`` is final and can be
/// stored, and it can be added to albums and folders in the same block.
public struct ObjectPlaceholder: LibraryObject {
    /// The identifier the created object has once the block commits.
    public let localIdentifier: String
}
