import GRDB

// Rows read column by column rather than through `Decodable`: GRDB's decoder walks a keyed container per row
// and builds a coding key per column, which cost a scan as much as the SQL that read the row. The column
// names are given in lowercase: a statement's row looks a name up in a dictionary of lowercase names, first
// as given (a mixed-case name is lowercased, a string made per column per row, before a second look-up).
// The values are those `Decodable` gives: a missing or NULL column of an optional property is nil, of a
// non-optional one an error.

extension AssetRow {
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        localIdentifier = try row.decode(forColumn: "localidentifier")
        mediaType = try row.decode(forColumn: "mediatype")
        mediaSubtypes = try row.decode(forColumn: "mediasubtypes")
        pixelWidth = try row.decode(forColumn: "pixelwidth")
        pixelHeight = try row.decode(forColumn: "pixelheight")
        creationDate = try row.decode(forColumn: "creationdate")
        creationTimeZoneOffset = try row.decode(forColumn: "creationtimezoneoffset")
        modificationDate = try row.decode(forColumn: "modificationdate")
        latitude = try row.decode(forColumn: "latitude")
        longitude = try row.decode(forColumn: "longitude")
        altitude = try row.decode(forColumn: "altitude")
        duration = try row.decode(forColumn: "duration")
        isFavorite = try row.decode(forColumn: "isfavorite")
        isHidden = try row.decode(forColumn: "ishidden")
        burstIdentifier = try row.decode(forColumn: "burstidentifier")
        representsBurst = try row.decode(forColumn: "representsburst")
        burstSelectionTypes = try row.decode(forColumn: "burstselectiontypes")
        sourceType = try row.decode(forColumn: "sourcetype")
        hasAdjustments = try row.decode(forColumn: "hasadjustments")
        originalFilename = try row.decode(forColumn: "originalfilename")
        uniformTypeIdentifier = try row.decode(forColumn: "uniformtypeidentifier")
        fileSize = try row.decode(forColumn: "filesize")
        contentHash = try row.decode(forColumn: "contenthash")
        storage = try row.decode(forColumn: "storage")
        filePath = try row.decode(forColumn: "filepath")
        addedDate = try row.decode(forColumn: "addeddate")
        momentId = try row.decode(forColumn: "momentid")
        adjustedContentHash = try row.decode(forColumn: "adjustedcontenthash")
    }
}

extension AssetCollectionRow {
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        localIdentifier = try row.decode(forColumn: "localidentifier")
        type = try row.decode(forColumn: "type")
        subtype = try row.decode(forColumn: "subtype")
        title = try row.decode(forColumn: "title")
        startDate = try row.decode(forColumn: "startdate")
        endDate = try row.decode(forColumn: "enddate")
        assetCount = try row.decode(forColumn: "assetcount")
        latitude = try row.decode(forColumn: "latitude")
        longitude = try row.decode(forColumn: "longitude")
        momentDay = try row.decode(forColumn: "momentday")
        locatedCount = try row.decode(forColumn: "locatedcount")
        createdAt = try row.decode(forColumn: "createdat")
    }
}
