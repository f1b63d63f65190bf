package xg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Errors that callers may test with errors.Is.
var (
	ErrFormat   = errors.New("malformed XG file")
	ErrChecksum = errors.New("checksum mismatch")
	ErrTooLarge = errors.New("size limit exceeded")
	ErrVersion  = errors.New("unsupported XG file version")
)

// Default limits; see Options.
const (
	DefaultMaxDecompressed = 64 << 20
	DefaultMaxThumbnail    = 16 << 20
)

// Options bound the memory a file may claim. Zero fields take the defaults.
type Options struct {
	// MaxDecompressed bounds the total size of the archive's files once
	// decompressed (a long match is about 2 MB).
	MaxDecompressed int64
	// MaxThumbnail bounds the JPEG thumbnail kept in File.Thumbnail.
	MaxThumbnail int64
}

func (o Options) withDefaults() Options {
	if o.MaxDecompressed <= 0 {
		o.MaxDecompressed = DefaultMaxDecompressed
	}
	if o.MaxThumbnail <= 0 {
		o.MaxThumbnail = DefaultMaxThumbnail
	}
	return o
}

// File is a decoded .xg or .xgp file.
type File struct {
	Header    RichGameHeader
	Thumbnail []byte   // JPEG of the position shown when the file was saved
	Archive   *Archive // the container of the files below

	// Version is the file version from the match header (30 for XG 2.10).
	Version int
	// Records holds temp.xg: the match header first, then each game's
	// header, its cube and move records and its footer, then the match
	// footer.
	Records []Record
	// Index holds temp.xgi, copies of the first and last records, when the
	// archive has it.
	Index []Record
	// Rollouts holds temp.xgr; RolloutIndexD and RolloutIndexM index it.
	Rollouts []RolloutContext
	// Comments holds temp.xgc, one RTF text per line; the Comment* fields of
	// the records index it (-1 for none).
	Comments []string
}

// MatchHeader returns the match header (the first record), or nil.
func (f *File) MatchHeader() *MatchHeader {
	if len(f.Records) == 0 {
		return nil
	}
	h, _ := f.Records[0].(*MatchHeader)
	return h
}

// Comment returns comment i, or false when i is -1 or out of range.
func (f *File) Comment(i int) (string, bool) {
	if i < 0 || i >= len(f.Comments) {
		return "", false
	}
	return f.Comments[i], true
}

// Rollout returns rollout i, or nil when i is -1 or out of range.
func (f *File) Rollout(i int) *RolloutContext {
	if i < 0 || i >= len(f.Rollouts) {
		return nil
	}
	return &f.Rollouts[i]
}

// Open reads the named file with the default limits.
func Open(name string) (*File, error) { return Options{}.Open(name) }

// NewReader decodes an XG file of the given size from r with the default
// limits.
func NewReader(r io.ReaderAt, size int64) (*File, error) { return Options{}.NewReader(r, size) }

// Open reads the named file within the limits of o.
func (o Options) Open(name string) (*File, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	f, err := decodeFile(fh, st.Size(), o.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("xg %s: %w", name, err)
	}
	return f, nil
}

// NewReader decodes an XG file of the given size from r within the limits
// of o. The whole file is decoded before it returns; r is not kept.
func (o Options) NewReader(r io.ReaderAt, size int64) (*File, error) {
	f, err := decodeFile(r, size, o.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("xg: %w", err)
	}
	return f, nil
}

// Names of the files in the archive.
const (
	nameRecords  = "temp.xg"
	nameIndex    = "temp.xgi"
	nameRollouts = "temp.xgr"
	nameComments = "temp.xgc"
)

func decodeFile(r io.ReaderAt, size int64, o Options) (*File, error) {
	h, err := readHeader(r, size)
	if err != nil {
		return nil, err
	}
	f := &File{Header: h}
	thumbOff, thumbLen, err := thumbnailBounds(h, size)
	if err != nil {
		return nil, err
	}
	if thumbLen > o.MaxThumbnail {
		return nil, fmt.Errorf("thumbnail: %w: %d bytes, limit %d", ErrTooLarge, thumbLen, o.MaxThumbnail)
	}
	f.Thumbnail = make([]byte, thumbLen) // within the file and the limit
	if _, err := r.ReadAt(f.Thumbnail, thumbOff); err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}

	files, err := extractAll(r, size, thumbOff+thumbLen, f, o)
	if err != nil {
		return nil, err
	}
	data, ok := files[nameRecords]
	if !ok {
		return nil, fmt.Errorf("%w: the archive has no %s", ErrFormat, nameRecords)
	}
	if f.Records, err = decodeRecords(data); err != nil {
		return nil, fmt.Errorf("%s: %w", nameRecords, err)
	}
	f.Version = f.MatchHeader().Version
	if data, ok := files[nameIndex]; ok {
		if f.Index, err = decodeRecords(data); err != nil {
			return nil, fmt.Errorf("%s: %w", nameIndex, err)
		}
	}
	if data, ok := files[nameRollouts]; ok {
		if f.Rollouts, err = decodeRollouts(data); err != nil {
			return nil, fmt.Errorf("%s: %w", nameRollouts, err)
		}
	}
	if data, ok := files[nameComments]; ok {
		f.Comments = splitComments(data)
	}
	return f, nil
}

// extractAll decompresses the archive's files by name within the limits.
// A file with no archive record but a zlib stream right after the header is
// read as a bare temp.xg.
func extractAll(r io.ReaderAt, size, dataStart int64, f *File, o Options) (map[string][]byte, error) {
	a, err := readArchive(r, size, dataStart)
	if errors.Is(err, errNoArchive) {
		data, err := readBare(r, size, dataStart, f.Header, o)
		if err != nil {
			return nil, fmt.Errorf("no archive record; %w", err)
		}
		f.Archive = &Archive{Offset: dataStart, Bare: true}
		return map[string][]byte{nameRecords: data}, nil
	}
	if err != nil {
		return nil, err
	}
	f.Archive = a
	files := make(map[string][]byte, len(a.Files))
	budget := o.MaxDecompressed
	for _, af := range a.Files {
		switch af.Name {
		case nameRecords, nameIndex, nameRollouts, nameComments:
		default:
			continue // unknown members are listed in Archive but not read
		}
		if _, dup := files[af.Name]; dup {
			return nil, fmt.Errorf("%w: %s twice in the archive", ErrFormat, af.Name)
		}
		data, err := a.extract(r, af, budget)
		if err != nil {
			return nil, err
		}
		budget -= int64(len(data))
		files[af.Name] = data
	}
	return files, nil
}

// readBare reads temp.xg stored as one zlib stream filling the file after
// a header with no thumbnail, a form one public parser reports (we have not
// seen such a file). Anything else is rejected, so that a damaged archive
// is not taken for this form.
func readBare(r io.ReaderAt, size, dataStart int64, h RichGameHeader, o Options) ([]byte, error) {
	if h.ThumbnailSize != 0 {
		return nil, fmt.Errorf("%w: not a bare zlib stream either (the file has a thumbnail)", ErrFormat)
	}
	// A bufio.Reader is a flate.Reader, so zlib reads no further than its
	// stream and the rest stays here to be checked.
	src := bufio.NewReader(io.NewSectionReader(r, dataStart, size-dataStart))
	data, err := inflate(src, -1, o.MaxDecompressed)
	if err != nil {
		return nil, fmt.Errorf("as a bare zlib stream: %w", err)
	}
	if _, err := src.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the bare zlib stream", ErrFormat)
	}
	return data, nil
}

// decodeRecords decodes temp.xg (or temp.xgi): whole TSaveRecs, the first
// a match header whose version governs the others.
func decodeRecords(data []byte) ([]Record, error) {
	if len(data) == 0 || len(data)%recordSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of %d-byte records", ErrFormat, len(data), recordSize)
	}
	if EntryType(data[8]) != TypeMatchHeader {
		return nil, fmt.Errorf("%w: first record is a %v, not a match header", ErrFormat, EntryType(data[8]))
	}
	recs := make([]Record, 0, len(data)/recordSize)
	version := 0
	for off := 0; off < len(data); off += recordSize {
		rec, err := decodeRecord(data[off:off+recordSize], version)
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", off/recordSize, err)
		}
		if h, ok := rec.(*MatchHeader); ok {
			if off > 0 {
				return nil, fmt.Errorf("%w: record %d: a second match header", ErrFormat, off/recordSize)
			}
			version = h.Version
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// decodeRollouts decodes temp.xgr.
func decodeRollouts(data []byte) ([]RolloutContext, error) {
	if len(data)%rolloutSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of %d-byte rollouts", ErrFormat, len(data), rolloutSize)
	}
	ro := make([]RolloutContext, len(data)/rolloutSize)
	for i := range ro {
		ro[i] = decodeRollout(&decoder{b: data[i*rolloutSize : (i+1)*rolloutSize]})
	}
	return ro, nil
}

// splitComments splits temp.xgc into its CRLF-terminated lines and turns
// the bytes 01 02 inside a line back into CR LF.
func splitComments(data []byte) []string {
	data = bytes.TrimSuffix(data, []byte("\r\n"))
	if len(data) == 0 {
		return nil
	}
	lines := bytes.Split(data, []byte("\r\n"))
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = decodeANSI(bytes.ReplaceAll(l, []byte{1, 2}, []byte("\r\n")))
	}
	return out
}
