package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// ErrUnavailable: the store did not answer (a network error, or a server
// error): the same request may succeed later. Callers wait and retry
// rather than count it as a failure of their work.
var ErrUnavailable = errors.New("object store unavailable")

// S3 is a Store in a bucket of an S3-compatible object store: blob
// ab12… is the object PREFIXab12…. The bucket replicates and keeps the
// bytes; the coordinators keep only their names.
//
// Every object is written with its SHA-256 as the x-amz-checksum-sha256
// header, signed: the store refuses content that does not hash to it,
// and answers it back on HEAD (Verify), so a name is the store's
// acknowledgement of the content. OpenS3 checks that the store does so
// before anything relies on it. Workers read and write through
// presigned URLs (PresignGet, PresignPut), so only the coordinators hold
// credentials, and a presigned PUT can only store the content it was
// signed for.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string
	http   *http.Client
	// MaxSize is the largest blob Put and PresignPut accept; 0 means
	// MaxS3Object, which is also the most a single PUT can store.
	MaxSize int64
}

// MaxS3Object is the largest object a single S3 PUT stores (5 GiB). A
// blob is one PUT, so that the store checks its SHA-256 whole: larger
// blobs are refused (multipart uploads only have checksums of parts).
const MaxS3Object = 5 << 30

// S3Config is where an S3 store is: from a URL of the form
// s3://BUCKET/PREFIX?endpoint=http://HOST:PORT&region=REGION.
type S3Config struct {
	Bucket, Prefix string
	// Endpoint is the store's base URL (empty: AWS, by region); with an
	// endpoint, objects are addressed path-style (HOST/BUCKET/KEY), as
	// S3-compatible servers expect.
	Endpoint string
	Region   string
}

// ParseS3URL reads an s3:// store URL.
func ParseS3URL(s string) (S3Config, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.User != nil || u.Fragment != "" {
		return S3Config{}, fmt.Errorf("store %q: want s3://BUCKET/PREFIX?endpoint=http://HOST:PORT&region=REGION", s)
	}
	cfg := S3Config{Bucket: u.Host, Prefix: strings.TrimPrefix(u.Path, "/")}
	if cfg.Prefix != "" && !strings.HasSuffix(cfg.Prefix, "/") {
		cfg.Prefix += "/"
	}
	for k, v := range u.Query() {
		switch k {
		case "endpoint":
			e, err := url.Parse(v[0])
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" || (e.Path != "" && e.Path != "/") {
				return S3Config{}, fmt.Errorf("store %q: endpoint %q: want http://HOST:PORT or https://HOST:PORT", s, v[0])
			}
			cfg.Endpoint = e.Scheme + "://" + e.Host
		case "region":
			cfg.Region = v[0]
		default:
			return S3Config{}, fmt.Errorf("store %q: unknown setting %q (endpoint, region)", s, k)
		}
	}
	return cfg, nil
}

// OpenS3 connects to the bucket with the credentials of the environment
// (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, with AWS_SESSION_TOKEN if
// set, or else the shared credentials file, ~/.aws/credentials or
// AWS_SHARED_CREDENTIALS_FILE, profile AWS_PROFILE),
// and checks, once, that the bucket exists, that the credentials may
// write, read and delete in it, and that the store refuses content that
// does not match its x-amz-checksum-sha256: it stores, reads back and
// deletes a small probe blob. Any of these failing is one error that
// says which.
func OpenS3(ctx context.Context, cfg S3Config) (*S3, error) {
	host, secure := "s3.amazonaws.com", true
	lookup := minio.BucketLookupAuto
	if cfg.Endpoint != "" {
		e, _ := url.Parse(cfg.Endpoint)
		host, secure = e.Host, e.Scheme == "https"
		lookup = minio.BucketLookupPath
	}
	// Only these two: an instance role would be asked of the cloud's
	// metadata address, which a machine that has none must not be sent
	// to.
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
	})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 32
	c, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region, BucketLookup: lookup,
		Transport: tr, MaxRetries: 3})
	if err != nil {
		return nil, fmt.Errorf("store s3://%s: %w", cfg.Bucket, err)
	}
	s := &S3{client: c, bucket: cfg.Bucket, prefix: cfg.Prefix, http: &http.Client{Transport: tr}}
	if err := s.check(ctx); err != nil {
		return nil, fmt.Errorf("store s3://%s/%s: %w", cfg.Bucket, cfg.Prefix, err)
	}
	return s, nil
}

// check is OpenS3's probe.
func (s *S3) check(ctx context.Context) error {
	// A listing, not a HEAD of the bucket: a HEAD's error has no body,
	// and some stores answer a wrong key with 404 there.
	lctx, cancel := context.WithCancel(ctx)
	for obj := range s.client.ListObjects(lctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, MaxKeys: 1}) {
		if obj.Err != nil {
			cancel()
			return explain(obj.Err)
		}
		break
	}
	cancel()
	probe := []byte("tierd object store probe " + time.Now().UTC().Format(time.RFC3339Nano))
	sum := sha256.Sum256(probe)
	name := hex.EncodeToString(sum[:])
	// Content that does not hash to the signed checksum must be refused:
	// the safety of every name rests on it.
	wrong := append(bytes.Clone(probe), '!')
	if err := s.putPresigned(ctx, name, int64(len(wrong)), bytes.NewReader(wrong)); err == nil {
		s.Delete(name)
		return errors.New("the store accepted content that does not match its x-amz-checksum-sha256: it does not check SHA-256 checksums, which tierd relies on")
	} else if errors.Is(err, ErrUnavailable) {
		return err
	}
	if err := s.Put(ctx, name, int64(len(probe)), bytes.NewReader(probe)); err != nil {
		return fmt.Errorf("writing a probe object: %w", err)
	}
	defer s.Delete(name)
	rc, size, err := s.Open(name)
	if err != nil {
		return fmt.Errorf("reading the probe object back: %w", err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || size != int64(len(probe)) || !bytes.Equal(got, probe) {
		return fmt.Errorf("reading the probe object back: %d bytes, %v", len(got), err)
	}
	if err := s.Delete(name); err != nil {
		return fmt.Errorf("deleting the probe object: %w", err)
	}
	return nil
}

// explain turns an S3 error into one that says what to fix.
func explain(err error) error {
	var r minio.ErrorResponse
	if errors.As(err, &r) {
		switch {
		case r.Code == "NoSuchBucket":
			return errors.New("the bucket does not exist")
		case r.StatusCode == http.StatusForbidden, r.Code == "InvalidAccessKeyId", r.Code == "SignatureDoesNotMatch",
			r.Code == "AccessDenied", r.Code == "InvalidSecurity", r.Code == "ExpiredToken",
			strings.HasSuffix(r.Code, "UserNotFound"): // versitygw's word for an unknown access key
			return fmt.Errorf("the store refused the credentials (%s: %s): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or ~/.aws/credentials", r.Code, r.Message)
		}
		if r.StatusCode >= 500 {
			return fmt.Errorf("%w: %s: %s", ErrUnavailable, r.Code, r.Message)
		}
		return fmt.Errorf("%s: %s", r.Code, r.Message)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if err != nil && strings.Contains(err.Error(), "connection refused") {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return err
}

// key is the object of blob sum.
func (s *S3) key(sum string) string { return s.prefix + sum }

// checksum is the x-amz-checksum-sha256 value of blob sum: its SHA-256
// in base64.
func checksum(sum string) string {
	b, _ := hex.DecodeString(sum)
	return base64.StdEncoding.EncodeToString(b)
}

func (s *S3) limit() int64 {
	if s.MaxSize > 0 && s.MaxSize < MaxS3Object {
		return s.MaxSize
	}
	return MaxS3Object
}

// Upload is a presigned PUT: the request a worker sends, without
// credentials, to store one blob.
type Upload struct {
	SHA256 string      `json:"sha256"`
	URL    string      `json:"url"`
	Header http.Header `json:"header"` // signed: sent as they are
}

// presignTTL is how long a presigned URL works.
const presignTTL = time.Hour

// PresignPut returns the request that stores blob sum of size bytes: a
// PUT whose signature covers the checksum header, so the store takes only
// the content it was signed for.
func (s *S3) PresignPut(ctx context.Context, sum string, size int64) (*Upload, error) {
	if err := checkName(sum); err != nil {
		return nil, err
	}
	if size < 0 || size > s.limit() {
		return nil, fmt.Errorf("blobstore: %s: %d bytes: %w (limit %d)", sum, size, ErrTooLarge, s.limit())
	}
	h := http.Header{}
	h.Set("x-amz-checksum-sha256", checksum(sum))
	u, err := s.client.PresignHeader(ctx, http.MethodPut, s.bucket, s.key(sum), presignTTL, nil, h)
	if err != nil {
		return nil, fmt.Errorf("blobstore: presigning %s: %w", sum, err)
	}
	return &Upload{SHA256: sum, URL: u.String(), Header: h}, nil
}

// PresignGet returns a URL that reads blob sum without credentials.
func (s *S3) PresignGet(ctx context.Context, sum string) (string, error) {
	if err := checkName(sum); err != nil {
		return "", err
	}
	u, err := s.client.PresignedGetObject(ctx, s.bucket, s.key(sum), presignTTL, nil)
	if err != nil {
		return "", fmt.Errorf("blobstore: presigning %s: %w", sum, err)
	}
	return u.String(), nil
}

// PutUpload sends size bytes of r with a presigned upload, on client
// (nil: http.DefaultClient). It is how workers store their outputs.
func PutUpload(ctx context.Context, client *http.Client, up *Upload, size int64, r io.Reader) error {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, up.URL, r)
	if err != nil {
		return err
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	for k, vs := range up.Header {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("blobstore: storing %s: %w: %v", up.SHA256, ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("blobstore: storing %s: %w: %s", up.SHA256, ErrUnavailable, resp.Status)
	case bytes.Contains(body, []byte("BadDigest")) || bytes.Contains(body, []byte("Checksum")) || bytes.Contains(body, []byte("checksum")):
		return fmt.Errorf("blobstore: storing %s: %w: the store says %s %s", up.SHA256, ErrMismatch, resp.Status, s3Code(body))
	}
	return fmt.Errorf("blobstore: storing %s: %s %s", up.SHA256, resp.Status, s3Code(body))
}

// s3Code is the <Code> of an S3 error body, if it has one.
func s3Code(body []byte) string {
	_, rest, ok := bytes.Cut(body, []byte("<Code>"))
	code, _, ok2 := bytes.Cut(rest, []byte("</Code>"))
	if !ok || !ok2 {
		return ""
	}
	return string(code)
}

// putPresigned stores a blob as a worker does: a presigned PUT.
func (s *S3) putPresigned(ctx context.Context, sum string, size int64, r io.Reader) error {
	up, err := s.PresignPut(ctx, sum, size)
	if err != nil {
		return err
	}
	return PutUpload(ctx, s.http, up, size, r)
}

// Put implements Store: the store checks the content against the signed
// checksum, and Put then asks it back (Verify).
func (s *S3) Put(ctx context.Context, sum string, size int64, r io.Reader) error {
	if err := checkName(sum); err != nil {
		return err
	}
	if err := s.Verify(ctx, sum, size); err == nil {
		return nil // blobs are immutable: it is there
	}
	if err := s.putPresigned(ctx, sum, size, ctxReader{ctx, r}); err != nil {
		return err
	}
	return s.Verify(ctx, sum, size)
}

// Verify checks that the store holds blob sum of size bytes, by the
// SHA-256 it recorded when it checked the content (a HEAD: no bytes
// move). It fails with ErrNotFound, ErrMismatch (a size or checksum not
// the name's, or none recorded) or ErrUnavailable.
func (s *S3) Verify(ctx context.Context, sum string, size int64) error {
	if err := checkName(sum); err != nil {
		return err
	}
	opts := minio.StatObjectOptions{}
	opts.Set("x-amz-checksum-mode", "ENABLED")
	info, err := s.client.StatObject(ctx, s.bucket, s.key(sum), opts)
	if err != nil {
		return s.notFound(sum, err)
	}
	if info.Size != size || info.ChecksumSHA256 != checksum(sum) {
		return fmt.Errorf("blobstore: %s: the store holds %d bytes with SHA-256 %q, not %d bytes with %q: %w",
			sum, info.Size, info.ChecksumSHA256, size, checksum(sum), ErrMismatch)
	}
	return nil
}

// notFound maps a missing object to ErrNotFound, other errors through
// explain.
func (s *S3) notFound(sum string, err error) error {
	var r minio.ErrorResponse
	if errors.As(err, &r) && (r.Code == "NoSuchKey" || r.StatusCode == http.StatusNotFound) {
		return fmt.Errorf("blobstore: %s: %w", sum, ErrNotFound)
	}
	return fmt.Errorf("blobstore: %s: %w", sum, explain(err))
}

// Open implements Store. The reader does not check the content: callers
// hash what they read (Dir.Put does).
func (s *S3) Open(sum string) (io.ReadCloser, int64, error) {
	if err := checkName(sum); err != nil {
		return nil, 0, err
	}
	ctx := context.Background()
	obj, err := s.client.GetObject(ctx, s.bucket, s.key(sum), minio.GetObjectOptions{})
	if err != nil {
		return nil, 0, s.notFound(sum, err)
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, 0, s.notFound(sum, err)
	}
	return obj, info.Size, nil
}

// Stat implements Store.
func (s *S3) Stat(sum string) (int64, error) {
	if err := checkName(sum); err != nil {
		return 0, err
	}
	info, err := s.client.StatObject(context.Background(), s.bucket, s.key(sum), minio.StatObjectOptions{})
	if err != nil {
		return 0, s.notFound(sum, err)
	}
	return info.Size, nil
}

// deleteTimeout bounds one deletion of an object.
const deleteTimeout = 20 * time.Second

// Delete implements Store.
func (s *S3) Delete(sum string) error {
	if err := checkName(sum); err != nil {
		return err
	}
	// Bounded: a collector deletes while completions wait for it
	// (coordinator's blobGuard), so a store that stops answering must
	// not hold them.
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	if err := s.client.RemoveObject(ctx, s.bucket, s.key(sum), minio.RemoveObjectOptions{}); err != nil {
		return s.notFound(sum, err)
	}
	return nil
}

// Walk implements Store: every blob under the prefix, with its size and
// when it was stored; other objects are skipped.
func (s *S3) Walk(f func(sum string, size int64, stored time.Time) error) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // stops the listing if f stops the walk
	for obj := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix}) {
		if obj.Err != nil {
			return fmt.Errorf("blobstore: listing: %w", explain(obj.Err))
		}
		name := strings.TrimPrefix(obj.Key, s.prefix)
		if !ValidName(name) {
			continue
		}
		if err := f(name, obj.Size, obj.LastModified); err != nil {
			return err
		}
	}
	return nil
}
