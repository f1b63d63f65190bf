package xg

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Sizes of the container's fixed parts.
const (
	headerSize        = 8232 // TRichGameHeader
	archiveRecordSize = 36   // the ZlibArchive record at the end of the file
	registryEntrySize = 532  // one registry entry
	maxArchiveFiles   = 64   // XG writes four at most
	// maxDeflateRatio bounds how much a deflate stream can expand (1032:1
	// plus slack for zlib's framing); a registry claiming more is lying.
	maxDeflateRatio = 1040
)

// The magic number of a TRichGameHeader, "RGMH".
const richGameMagic = 0x484D4752

// RichGameHeader is the DirectX rich-game header at the start of every
// .xg/.xgp file (TRichGameHeader, 8232 bytes).
type RichGameHeader struct {
	MagicNumber     uint32 // "RGMH"
	HeaderVersion   uint32 // 1
	HeaderSize      uint32 // 8232
	ThumbnailOffset int64  // thumbnail start, relative to the end of the header
	ThumbnailSize   uint32 // JPEG thumbnail size in bytes
	GameID          GUID   // game id
	GameName        string // szGameName
	SaveName        string // szSaveName
	LevelName       string // szLevelName
	Comments        string // szComments
}

// ArchiveFile is one entry of the ZlibArchive registry.
type ArchiveFile struct {
	Name           string // "temp.xg", "temp.xgi", "temp.xgr", "temp.xgc"
	Path           string // unused by XG
	OriginalSize   int32  // size once decompressed
	CompressedSize int32  // size in the archive
	Start          int32  // offset from the start of the archive
	CRC            uint32 // CRC-32 of the decompressed file
	Stored         bool   // stored without compression (status byte 1)
	Level          uint8  // compression level
}

// Archive describes the ZlibArchive that holds the match data.
type Archive struct {
	CRC          uint32 // CRC-32 of everything from Offset up to the archive record
	Version      int32  // 1
	RegistrySize int32  // compressed size of the registry
	Size         int32  // size of the file data before the registry
	Compressed   bool   // the registry is zlib-compressed
	Offset       int64  // start of the archive in the file
	Files        []ArchiveFile
	// Bare is set for files with no archive record, where temp.xg follows the
	// header as one zlib stream (reported by one parser, never seen by us).
	Bare bool
}

// inflate decompresses one zlib stream from r, expecting want bytes (or up
// to limit when want < 0). Output grows only as data actually decompresses,
// and reading stops one byte past the bound, so a zlib bomb costs at most
// limit+1 bytes.
func inflate(r io.Reader, want, limit int64) ([]byte, error) {
	if want > limit {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, want, limit)
	}
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: zlib: %v", ErrFormat, err)
	}
	bound := limit
	if want >= 0 {
		bound = want
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(zr, bound+1))
	if err != nil {
		return nil, fmt.Errorf("%w: zlib: %v", ErrFormat, err)
	}
	switch {
	case n > bound && want < 0:
		return nil, fmt.Errorf("%w: more than %d bytes decompressed", ErrTooLarge, limit)
	case n > bound:
		return nil, fmt.Errorf("%w: more than the %d bytes the registry announces", ErrFormat, want)
	case want >= 0 && n != want:
		return nil, fmt.Errorf("%w: %d bytes decompressed, registry says %d", ErrFormat, n, want)
	}
	return buf.Bytes(), nil
}

// readHeader reads and checks the TRichGameHeader.
func readHeader(r io.ReaderAt, size int64) (RichGameHeader, error) {
	var h RichGameHeader
	if size < headerSize {
		return h, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrFormat, size, headerSize)
	}
	b := make([]byte, headerSize)
	if _, err := r.ReadAt(b, 0); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	d := &decoder{b: b}
	h.MagicNumber = d.u32()
	if h.MagicNumber != richGameMagic {
		return h, fmt.Errorf("%w: not an XG file (magic %q)", ErrFormat, b[:4])
	}
	h.HeaderVersion = d.u32()
	h.HeaderSize = d.u32()
	h.ThumbnailOffset = int64(binary.LittleEndian.Uint64(b[12:])) // packed record: no alignment
	d.off = 20
	h.ThumbnailSize = d.u32()
	copy(h.GameID[:], b[24:40])
	d.off = 40
	h.GameName = d.wideString(1024)
	h.SaveName = d.wideString(1024)
	h.LevelName = d.wideString(1024)
	h.Comments = d.wideString(1024)
	if h.HeaderSize < headerSize || int64(h.HeaderSize) > size {
		return h, fmt.Errorf("%w: header size %d", ErrFormat, h.HeaderSize)
	}
	return h, nil
}

// thumbnailBounds returns the thumbnail's offset and size, checked against
// the file.
func thumbnailBounds(h RichGameHeader, size int64) (off, n int64, err error) {
	off, n = int64(h.HeaderSize)+h.ThumbnailOffset, int64(h.ThumbnailSize)
	if h.ThumbnailOffset < 0 || h.ThumbnailOffset > size || off+n > size {
		return 0, 0, fmt.Errorf("%w: thumbnail at %d+%d outside the %d-byte file", ErrFormat, off, n, size)
	}
	return off, n, nil
}

// errNoArchive means the file does not end with an archive record.
var errNoArchive = errors.New("no archive record")

// readArchive locates the ZlibArchive from the end of the file, checks its
// CRC and decodes its registry. dataStart is where the archive may begin at
// the earliest.
func readArchive(r io.ReaderAt, size, dataStart int64) (*Archive, error) {
	if size-dataStart < archiveRecordSize {
		return nil, errNoArchive
	}
	rec := make([]byte, archiveRecordSize)
	if _, err := r.ReadAt(rec, size-archiveRecordSize); err != nil {
		return nil, fmt.Errorf("archive record: %w", err)
	}
	i32 := func(off int) int32 { return int32(binary.LittleEndian.Uint32(rec[off:])) }
	a := &Archive{
		CRC:          uint32(i32(0)),
		Version:      i32(8),
		RegistrySize: i32(12),
		Size:         i32(16),
		Compressed:   i32(20) != 0,
	}
	count := i32(4)
	if a.Version != 1 {
		return nil, errNoArchive
	}
	a.Offset = size - archiveRecordSize - int64(a.RegistrySize) - int64(a.Size)
	if a.RegistrySize < 0 || a.Size < 0 || a.Offset < dataStart {
		return nil, fmt.Errorf("%w: archive of %d+%d bytes does not fit between %d and the end of the %d-byte file",
			ErrFormat, a.Size, a.RegistrySize, dataStart, size)
	}
	if count < 0 || count > maxArchiveFiles {
		return nil, fmt.Errorf("%w: archive of %d files", ErrFormat, count)
	}

	body := io.NewSectionReader(r, a.Offset, int64(a.Size)+int64(a.RegistrySize))
	crc := crc32.NewIEEE()
	if _, err := io.Copy(crc, body); err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	if got := crc.Sum32(); got != a.CRC {
		return nil, fmt.Errorf("%w: archive CRC %08x, recorded %08x", ErrChecksum, got, a.CRC)
	}

	regLen := int64(count) * registryEntrySize
	regSrc := io.NewSectionReader(r, a.Offset+int64(a.Size), int64(a.RegistrySize))
	var reg []byte
	var err error
	if a.Compressed {
		reg, err = inflate(regSrc, regLen, regLen)
	} else if int64(a.RegistrySize) != regLen {
		err = fmt.Errorf("%w: stored registry of %d bytes for %d files", ErrFormat, a.RegistrySize, count)
	} else {
		reg = make([]byte, regLen)
		_, err = regSrc.ReadAt(reg, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}

	for i := range int(count) {
		e := reg[i*registryEntrySize : (i+1)*registryEntrySize]
		d := &decoder{b: e}
		f := ArchiveFile{Name: d.shortString(255), Path: d.shortString(255)}
		d.off = 512
		f.OriginalSize = int32(d.integer())
		f.CompressedSize = int32(d.integer())
		f.Start = int32(d.integer())
		f.CRC = d.u32()
		f.Stored = d.u8() == 1
		f.Level = d.u8()
		if f.OriginalSize < 0 || f.CompressedSize < 0 || f.Start < 0 ||
			int64(f.Start)+int64(f.CompressedSize) > int64(a.Size) {
			return nil, fmt.Errorf("%w: registry entry %q at %d+%d outside the %d-byte archive",
				ErrFormat, f.Name, f.Start, f.CompressedSize, a.Size)
		}
		a.Files = append(a.Files, f)
	}
	return a, nil
}

// extract returns the decompressed contents of f, checking its size and CRC.
// budget is what the limits still allow.
func (a *Archive) extract(r io.ReaderAt, f ArchiveFile, budget int64) ([]byte, error) {
	src := io.NewSectionReader(r, a.Offset+int64(f.Start), int64(f.CompressedSize))
	want := int64(f.OriginalSize)
	if want > budget {
		return nil, fmt.Errorf("%s: %w: %d bytes, limit %d", f.Name, ErrTooLarge, want, budget)
	}
	var data []byte
	var err error
	switch {
	case f.Stored && f.CompressedSize != f.OriginalSize:
		err = fmt.Errorf("%w: stored file of %d bytes claims %d", ErrFormat, f.CompressedSize, f.OriginalSize)
	case f.Stored:
		data = make([]byte, want) // want <= CompressedSize, bytes that exist in the file
		_, err = src.ReadAt(data, 0)
	case want > int64(f.CompressedSize)*maxDeflateRatio+64:
		err = fmt.Errorf("%w: %d bytes cannot inflate to %d", ErrFormat, f.CompressedSize, want)
	default:
		data, err = inflate(src, want, budget)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	if got := crc32.ChecksumIEEE(data); got != f.CRC {
		return nil, fmt.Errorf("%s: %w: CRC %08x, recorded %08x", f.Name, ErrChecksum, got, f.CRC)
	}
	return data, nil
}
