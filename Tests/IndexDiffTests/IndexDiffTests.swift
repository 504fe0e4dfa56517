import Testing
@testable import IndexDiff

