/// MIME types of the uniform type identifiers the library records.
enum MediaTypes {
    static func mimeType(forTypeIdentifier identifier: String?) -> String {
        switch identifier {
        case "public.jpeg": "image/jpeg"
        case "public.png": "image/png"
        case "com.compuserve.gif": "image/gif"
        case "org.webmproject.webp": "image/webp"
        case "public.tiff": "image/tiff"
        case "public.heic": "image/heic"
        case "public.heics": "image/heic-sequence"
        case "public.heif": "image/heif"
        case "public.avif": "image/avif"
        case "com.adobe.raw-image": "image/x-adobe-dng"
        case "public.mpeg-4": "video/mp4"
        case "com.apple.quicktime-movie": "video/quicktime"
        case "com.apple.m4v-video": "video/x-m4v"
        case "public.3gpp": "video/3gpp"
        case "public.3gpp2": "video/3gpp2"
        case "com.apple.m4a-audio": "audio/mp4"
        case "public.mp3": "audio/mpeg"
        case "com.microsoft.waveform-audio": "audio/wav"
        case let other? where other.hasSuffix("raw-image"): "image/x-raw"
        default: "application/octet-stream"
        }
    }
}
