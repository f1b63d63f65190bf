package xg

import (
	"bytes"
	"os"
	"testing"
)

// loadCorpus returns the real matches' bytes.
func loadCorpus(b *testing.B) [][]byte {
	var files [][]byte
	for _, name := range corpusFiles(b) {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	return files
}

// reportRecords adds a records/s metric for n records per iteration.
func reportRecords(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkNewReader decodes whole files: CRCs, inflation and records.
// MB/s counts file bytes.
func BenchmarkNewReader(b *testing.B) {
	files := loadCorpus(b)
	size, records := 0, 0
	for _, data := range files {
		size += len(data)
		records += len(decodeBytes(b, data).Records)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, data := range files {
			if _, err := NewReader(bytes.NewReader(data), int64(len(data))); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportRecords(b, records)
}

// BenchmarkDecodeRecords decodes temp.xg alone. MB/s counts record bytes.
func BenchmarkDecodeRecords(b *testing.B) {
	var streams [][]byte
	size := 0
	for _, data := range loadCorpus(b) {
		r := bytes.NewReader(data)
		a, err := readArchive(r, int64(len(data)), headerSize)
		if err != nil {
			b.Fatal(err)
		}
		recs, err := a.extract(r, a.Files[0], DefaultMaxDecompressed)
		if err != nil {
			b.Fatal(err)
		}
		streams = append(streams, recs)
		size += len(recs)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, s := range streams {
			if _, err := decodeRecords(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportRecords(b, size/recordSize)
}

// BenchmarkDecisions measures the position API: steps, notation and IDs.
func BenchmarkDecisions(b *testing.B) {
	var files []*File
	n := 0
	for _, data := range loadCorpus(b) {
		f := decodeBytes(b, data)
		ds, err := f.Decisions()
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
		n += len(ds)
	}
	for b.Loop() {
		for _, f := range files {
			if _, err := f.Decisions(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
