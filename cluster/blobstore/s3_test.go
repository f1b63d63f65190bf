package blobstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tiersolve/tiersolve/cluster/blobstore"
	"github.com/tiersolve/tiersolve/internal/s3test"
)

func openS3(t *testing.T, srv *s3test.Server, bucket, prefix string) (*blobstore.S3, error) {
	t.Helper()
	cfg, err := blobstore.ParseS3URL(srv.URL(bucket, prefix))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return blobstore.OpenS3(ctx, cfg)
}

func withCreds(t *testing.T, access, secret string) {
	t.Setenv("AWS_ACCESS_KEY_ID", access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent") // only these
}

func named(content string) (string, []byte) {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:]), []byte(content)
}

// TestS3Store: a real S3 server (versitygw) on loopback: blobs stored,
// verified by the store's SHA-256, read, listed and deleted; a presigned
// PUT stores only the content it was signed for; wrong credentials and a
// missing bucket are one clear error when the store opens.
func TestS3Store(t *testing.T) {
	srv := s3test.Start(t, "tierd")
	withCreds(t, s3test.AccessKey, s3test.SecretKey)
	s, err := openS3(t, srv, "tierd", "runs/a")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sum, content := named("a level file's bytes")
	if err := s.Verify(ctx, sum, int64(len(content))); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Verify of a missing blob: %v", err)
	}
	if err := s.Put(ctx, sum, int64(len(content)), bytes.NewReader(content)); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx, sum, int64(len(content))); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx, sum, int64(len(content))+1); !errors.Is(err, blobstore.ErrMismatch) {
		t.Fatalf("Verify with a wrong size: %v", err)
	}
	rc, size, err := s.Open(sum)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if size != int64(len(content)) || !bytes.Equal(got, content) {
		t.Fatalf("Open: %d bytes %q", size, got)
	}

	// Presigned: the signed checksum binds the content.
	other, otherContent := named("a partial level file")
	up, err := s.PresignPut(ctx, other, int64(len(otherContent)))
	if err != nil {
		t.Fatal(err)
	}
	forged := []byte("a partial level filf")
	if err := blobstore.PutUpload(ctx, nil, up, int64(len(forged)), bytes.NewReader(forged)); err == nil {
		t.Fatal("a presigned PUT stored content other than the one it was signed for")
	}
	// Without its checksum header, the signature does not hold: the
	// header is signed.
	bare := *up
	bare.Header = http.Header{}
	if err := blobstore.PutUpload(ctx, nil, &bare, int64(len(forged)), bytes.NewReader(forged)); err == nil {
		t.Fatal("a presigned PUT without its checksum header stored content")
	}
	if _, err := s.Stat(other); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("after a refused PUT: %v", err)
	}
	if err := blobstore.PutUpload(ctx, nil, up, int64(len(otherContent)), bytes.NewReader(otherContent)); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx, other, int64(len(otherContent))); err != nil {
		t.Fatal(err)
	}
	get, err := s.PresignGet(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(get)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(got, otherContent) {
		t.Fatalf("presigned GET: %s %q", resp.Status, got)
	}

	var names []string
	if err := s.Walk(func(sum string, size int64, at time.Time) error {
		names = append(names, sum)
		if time.Since(at) > time.Hour {
			t.Errorf("%s stored at %v", sum, at)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 {
		t.Fatalf("Walk: %v", names)
	}
	for _, n := range names {
		if err := s.Delete(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(sum); err != nil {
		t.Fatalf("deleting a missing blob: %v", err)
	}
	if objs := srv.Objects("tierd"); len(objs) != 0 {
		t.Errorf("left in the bucket: %v", objs)
	}
	if _, err := s.Stat("../../etc/passwd"); !errors.Is(err, blobstore.ErrBadName) {
		t.Errorf("a name outside the store: %v", err)
	}

	// Clear errors at open.
	if _, err := openS3(t, srv, "missing", ""); err == nil || !strings.Contains(err.Error(), "bucket does not exist") {
		t.Errorf("a missing bucket: %v", err)
	}
	withCreds(t, s3test.AccessKey, "wrong-secret-0123456789")
	if _, err := openS3(t, srv, "tierd", ""); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("a wrong secret: %v", err)
	}
	withCreds(t, "nobody", s3test.SecretKey)
	if _, err := openS3(t, srv, "tierd", ""); err == nil || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("a wrong access key: %v", err)
	}
	srv.Stop()
	withCreds(t, s3test.AccessKey, s3test.SecretKey)
	if _, err := openS3(t, srv, "tierd", ""); !errors.Is(err, blobstore.ErrUnavailable) {
		t.Errorf("a store that does not answer: %v", err)
	}
}

func TestParseS3URL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want blobstore.S3Config
		bad  bool
	}{
		{in: "s3://b", want: blobstore.S3Config{Bucket: "b"}},
		{in: "s3://b/p/q?region=eu-west-1", want: blobstore.S3Config{Bucket: "b", Prefix: "p/q/", Region: "eu-west-1"}},
		{in: "s3://b/p/?endpoint=http://127.0.0.1:9000&region=r", want: blobstore.S3Config{Bucket: "b", Prefix: "p/", Endpoint: "http://127.0.0.1:9000", Region: "r"}},
		{in: "s3://b?endpoint=https://minio.example:443/", want: blobstore.S3Config{Bucket: "b", Endpoint: "https://minio.example:443"}},
		{in: "http://b/p", bad: true},
		{in: "s3:///p", bad: true},
		{in: "s3://b?endpoint=ftp://x", bad: true},
		{in: "s3://b?endpoint=http://x/path", bad: true},
		{in: "s3://b?color=red", bad: true},
		{in: "s3://user:pw@b", bad: true},
	} {
		got, err := blobstore.ParseS3URL(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("ParseS3URL(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// FuzzParseS3URL: any string is a store or one error, never a panic; a
// store has a bucket, a prefix that is empty or ends with a slash, and an
// endpoint that is empty or a bare http(s) base URL.
func FuzzParseS3URL(f *testing.F) {
	for _, s := range []string{"s3://b", "s3://b/p/q?region=eu-west-1", "s3://b/p/?endpoint=http://127.0.0.1:9000&region=r",
		"s3://b?endpoint=https://minio.example:443/", "http://b/p", "s3:///p", "s3://b?endpoint=ftp://x", "s3://b?color=red",
		"s3://user:pw@b", "s3://b/%2e%2e/x", "s3://b?endpoint=http://[::1]:9000", "s3://b#frag", "s3://b?endpoint="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := blobstore.ParseS3URL(s)
		if err != nil {
			return
		}
		if cfg.Bucket == "" || (cfg.Prefix != "" && !strings.HasSuffix(cfg.Prefix, "/")) {
			t.Fatalf("%q: %+v", s, cfg)
		}
		if cfg.Endpoint != "" && !strings.HasPrefix(cfg.Endpoint, "http://") && !strings.HasPrefix(cfg.Endpoint, "https://") {
			t.Fatalf("%q: endpoint %q", s, cfg.Endpoint)
		}
	})
}
