extension AssetRow {
    /// The row's position as a ``Location``: nil unless both latitude and longitude are set. Setting it writes
    /// all three columns (nil clears them). The one mapping between the columns and ``Location``, for the
    /// model, the change requests and the commit's checks.
    var location: Location? {
        get {
            guard let latitude, let longitude else { return nil }
            return Location(latitude: latitude, longitude: longitude, altitude: altitude)
        }
        set {
            latitude = newValue?.latitude
            longitude = newValue?.longitude
            altitude = newValue?.altitude
        }
    }
}
