import PhotoImaging

extension CommandFailure {
    /// An image request's failure, in the command line's words. The JSON `error` code names the kind:
    /// `fileMissing`, `unreadable`, `unsupportedFormat`, `corruptImage`, `imageTooLarge`, `noImage`; all exit
    /// with code 1, except an invalid request (a usage error, 2).
    static func from(_ error: ImageError, asset identifier: String) -> CommandFailure {
        switch error {
        case .fileMissing(let path):
            CommandFailure(code: "fileMissing", "the file of asset \(identifier) is missing: \(path)")
        case .fileUnreadable(let path, let reason):
            CommandFailure(code: "unreadable", "can't read \(path) (asset \(identifier)): \(reason)")
        case .unsupportedFormat(let path, let reason):
            CommandFailure(code: "unsupportedFormat", "\(path) (asset \(identifier)) is not an image photosync can read: \(reason)")
        case .corruptImage(let path, let reason):
            CommandFailure(code: "corruptImage", "\(path) (asset \(identifier)) is damaged: \(reason)")
        case .imageTooLarge(let width, let height, let limit):
            CommandFailure(
                code: "imageTooLarge",
                "asset \(identifier) declares \(width)×\(height) pixels, over the limit of \(limit): refused before decoding (a decompression bomb, or an absurd size)")
        case .noImage:
            CommandFailure(code: "noImage", "asset \(identifier) has no image (audio)")
        case .invalidRequest(let message):
            CommandFailure(.usage, code: "usage", message)
        case .library(let error):
            from(error)
        case .cacheUnavailable, .encodingFailed, .cancelled:
            CommandFailure("asset \(identifier): \(error)")
        }
    }
}
