/// The datasets of an IPTC-IIM block, as libvips attaches it (`iptc-data`): a JPEG's APP13
/// payload ("Photoshop 3.0\0" and its 8BIM resources, of which resource 0x0404 holds the IIM
/// datasets), bare 8BIM resources, or bare IIM datasets (TIFF's IPTC tag).
///
/// Only what `ladder check` needs is kept: which datasets hold a value, never the values.
package struct IPTCRecord: Sendable, Equatable {
    /// One dataset's number: record 2, dataset 80 is the by-line.
    package struct DataSet: Sendable, Hashable, Comparable {
        package var record: UInt8
        package var number: UInt8

        package init(_ record: UInt8, _ number: UInt8) {
            self.record = record
            self.number = number
        }

        package static func < (left: DataSet, right: DataSet) -> Bool {
            (left.record, left.number) < (right.record, right.number)
        }
    }

    /// Datasets that hold something besides blanks and NULs, in file order, each once.
    package var filledDataSets: [DataSet]

    package init(filledDataSets: [DataSet]) { self.filledDataSets = filledDataSets }

    /// Parses a block; datasets cut short at the end of a damaged block are left out, and a
    /// block with no IIM in it gives an empty record.
    package init(parsing block: [UInt8]) {
        var filled: [DataSet] = []
        for datasets in Self.iimBlocks(in: block[...]) {
            for (dataSet, value) in Self.dataSets(in: datasets)
            where !filled.contains(dataSet) && value.contains(where: { $0 != 0 && $0 != 0x20 && $0 != 0x09 }) {
                filled.append(dataSet)
            }
        }
        self.init(filledDataSets: filled)
    }

    // MARK: - Fields that name people or places

    /// An IIM dataset that names a person or a place, with its name in the IIM standard.
    package struct PersonalField: Sendable, Hashable {
        package var dataSet: DataSet
        package var name: String
        package var names: PersonalData
    }

    /// The application-record (2:) datasets that name people or places. Keywords (2:25) are
    /// left out: IIM does not say whether a keyword is a person, a place or a topic.
    package static let personalFields: [PersonalField] = [
        PersonalField(dataSet: DataSet(2, 80), name: "By-line", names: .creator),
        PersonalField(dataSet: DataSet(2, 122), name: "Writer/Editor", names: .creator),
        PersonalField(dataSet: DataSet(2, 116), name: "Copyright Notice", names: .copyrightHolder),
        PersonalField(dataSet: DataSet(2, 118), name: "Contact", names: .creator),
        PersonalField(dataSet: DataSet(2, 26), name: "Content Location Code", names: .place),
        PersonalField(dataSet: DataSet(2, 27), name: "Content Location Name", names: .place),
        PersonalField(dataSet: DataSet(2, 90), name: "City", names: .place),
        PersonalField(dataSet: DataSet(2, 92), name: "Sub-location", names: .place),
        PersonalField(dataSet: DataSet(2, 95), name: "Province/State", names: .place),
        PersonalField(dataSet: DataSet(2, 100), name: "Country Code", names: .place),
        PersonalField(dataSet: DataSet(2, 101), name: "Country Name", names: .place),
    ]

    /// The fields of `personalFields` that hold a value, as "IPTC By-line", in the order of
    /// that table.
    package var personalFieldNames: [String] {
        Self.personalFields.filter { filledDataSets.contains($0.dataSet) }.map { "IPTC \($0.name)" }
    }

    // MARK: - Reading the block

    /// The IIM data in a block: the 0x0404 resources of Photoshop's image resources, or the
    /// block itself when it is bare IIM.
    static func iimBlocks(in block: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        let photoshop = Array("Photoshop 3.0\0".utf8)
        if block.starts(with: photoshop) {
            return iimBlocks(in: block.dropFirst(photoshop.count))
        }
        if block.starts(with: Array("8BIM".utf8)) {
            return imageResources(in: block).filter { $0.id == 0x0404 }.map(\.data)
        }
        return block.first == 0x1C ? [block] : []
    }

    /// Photoshop image resources: "8BIM", a 16-bit id, a Pascal name padded to an even length,
    /// a 32-bit size and the data padded to an even length. Stops at the first malformed one.
    static func imageResources(in block: ArraySlice<UInt8>) -> [(id: UInt16, data: ArraySlice<UInt8>)] {
        var resources: [(id: UInt16, data: ArraySlice<UInt8>)] = []
        var at = block.startIndex
        let signature = Array("8BIM".utf8)
        while at + 7 <= block.endIndex, block[at..<(at + 4)].elementsEqual(signature) {
            let id = UInt16(block[at + 4]) << 8 | UInt16(block[at + 5])
            let nameLength = Int(block[at + 6])
            // The length byte and the name together take an even number of bytes.
            var sizeAt = at + 7 + nameLength
            if (1 + nameLength) % 2 == 1 { sizeAt += 1 }
            guard sizeAt + 4 <= block.endIndex else { break }
            let size = block[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let dataAt = sizeAt + 4
            guard size <= block.endIndex - dataAt else { break }
            resources.append((id, block[dataAt..<(dataAt + size)]))
            at = dataAt + size + size % 2
        }
        return resources
    }

    /// IIM datasets: the tag marker 0x1C, record, dataset, and a 16-bit length (or, with its
    /// top bit set, the count of the bytes that hold the length). Stops at the first byte that
    /// is not a tag marker, or at a dataset that runs past the end.
    static func dataSets(in data: ArraySlice<UInt8>) -> [(DataSet, ArraySlice<UInt8>)] {
        var found: [(DataSet, ArraySlice<UInt8>)] = []
        var at = data.startIndex
        while at + 5 <= data.endIndex, data[at] == 0x1C {
            let dataSet = DataSet(data[at + 1], data[at + 2])
            var length = Int(data[at + 3]) << 8 | Int(data[at + 4])
            var valueAt = at + 5
            if length & 0x8000 != 0 {
                let count = length & 0x7FFF
                guard count <= 4, valueAt + count <= data.endIndex else { break }
                length = data[valueAt..<(valueAt + count)].reduce(0) { $0 << 8 | Int($1) }
                valueAt += count
            }
            guard length <= data.endIndex - valueAt else { break }
            found.append((dataSet, data[valueAt..<(valueAt + length)]))
            at = valueAt + length
        }
        return found
    }
}

/// What a metadata field found in an original says about people, places or devices.
package enum PersonalData: String, Sendable, Hashable, Codable {
    /// The name of whoever made the picture (or wrote its caption, or is its contact).
    case creator
    /// Who holds the copyright.
    case copyrightHolder
    /// The name of the camera's owner.
    case cameraOwner
    /// A serial number of the camera or lens.
    case serialNumber
    /// A place: where it was taken or what it shows.
    case place
    /// A person shown in the picture.
    case personInImage
    /// A GPS position.
    case gpsPosition
}
