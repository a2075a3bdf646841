package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Bucket is a Store over a gocloud.dev/blob bucket: S3 (and any
// S3-compatible store), Google Cloud Storage, Azure Blob Storage, or an
// in-memory bucket in tests. The keys are the run directory's, so a run
// keeps one layout wherever it lives.
//
// Atomicity comes from the object stores themselves: a blob writer makes
// its object visible only when Close succeeds, and an aborted write
// (cancelled context) leaves the old object, or none, in place.
type Bucket struct {
	b    *blob.Bucket
	name string
	// Timeout bounds each call, so that a store that stops answering
	// becomes an error instead of a hang.
	Timeout time.Duration
}

// NewBucket wraps an open bucket; name is how messages call it (its URL).
// Close closes the bucket.
func NewBucket(b *blob.Bucket, name string) *Bucket {
	return &Bucket{b: b, name: name, Timeout: 5 * time.Minute}
}

func (s *Bucket) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.Timeout)
}

// Read implements Store.
func (s *Bucket) Read(key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	b, err := s.b.ReadAll(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("store: %s: %s: %w", s.name, key, ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", s.name, err)
	}
	return b, nil
}

// Write implements Store.
func (s *Bucket) Write(key string, data []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	// ContentType given: without it the driver sniffs the bytes, which
	// costs a copy and tells readers nothing they use.
	if err := s.b.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		return fmt.Errorf("store: %s: writing %s: %w", s.name, key, err)
	}
	return nil
}

// List implements Store. Names starting with a dot (the temporary files a
// local directory's writers use) are left out, as Dir leaves them out.
func (s *Bucket) List(prefix string) ([]string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var keys []string
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("store: %s: listing %s: %w", s.name, prefix, err)
		}
		if obj.IsDir || strings.HasPrefix(pathBase(obj.Key), ".") {
			continue
		}
		keys = append(keys, obj.Key)
	}
	sort.Strings(keys)
	return keys, nil
}

func pathBase(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[i+1:]
	}
	return key
}

// Remove implements Store.
func (s *Bucket) Remove(key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := s.ctx()
	defer cancel()
	err := s.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("store: %s: removing %s: %w", s.name, key, err)
	}
	return nil
}

// Local implements Store: an object store has no local paths.
func (s *Bucket) Local(string) string { return "" }

// String is the bucket's URL.
func (s *Bucket) String() string { return s.name }

// Entries implements Store.
func (s *Bucket) Entries(n int) ([]string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var names []string
	it := s.b.List(&blob.ListOptions{Delimiter: "/"})
	for len(names) < n {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("store: %s: listing: %w", s.name, err)
		}
		name := strings.TrimSuffix(obj.Key, "/")
		if !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	return names, nil
}

// Close closes the bucket.
func (s *Bucket) Close() error {
	if err := s.b.Close(); err != nil {
		return fmt.Errorf("store: %s: %w", s.name, err)
	}
	return nil
}

// Open opens the store a URL names:
//
//	file:///abs/dir, or a plain path   a local or shared directory (Dir)
//	s3://bucket?region=R[&endpoint=URL&use_path_style=true]   S3 or an S3-compatible store
//	gs://bucket                        Google Cloud Storage
//	azblob://container                 Azure Blob Storage
//	mem://                             an in-memory bucket (tests)
//
// A path after the bucket name (s3://bucket/runs/a) is a prefix: the run
// lives under it. Credentials come from each cloud's usual environment.
// A fragment, a query on file:// or mem://, and "." or ".." path
// segments (also percent-encoded) are refused: each would be ignored or
// would lead elsewhere than the URL seems to say; a cloud driver refuses
// query parameters it does not know.
//
// Why file:// is a Dir and not gocloud's fileblob: fileblob writes its
// temporary file into $TMPDIR and renames it (which fails across file
// systems, so on any shared mount) or, with no_tmp_dir, beside the target
// under a name that listings show; and it does not fsync. Dir writes a
// hidden temporary file beside the target, fsyncs it and renames it, so a
// half-written artifact is never visible and a crash never loses a
// committed one. The layout is the same, so palace report and palace shard
// verify read a distributed run's file:// bucket as they read a local run.
func Open(rawURL string) (Store, error) {
	if rawURL == "" {
		return nil, errors.New("store: empty URL")
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || len(u.Scheme) == 1 { // "C:" is a drive, not a scheme
		if strings.Contains(rawURL, "://") {
			return nil, fmt.Errorf("store: bad URL %q: %v", rawURL, err)
		}
		return NewDir(rawURL)
	}
	if u.Fragment != "" || strings.Contains(rawURL, "#") {
		return nil, fmt.Errorf("store: %q: a fragment (#...) means nothing here", rawURL)
	}
	// Dot segments are refused after decoding: %2e%2e would otherwise
	// climb out of the path as written.
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return nil, fmt.Errorf("store: %q: a %q segment in the path; name the directory or prefix itself", rawURL, seg)
		}
	}
	if (u.Scheme == "file" || u.Scheme == "mem") && (u.RawQuery != "" || u.ForceQuery) {
		return nil, fmt.Errorf("store: %q: a %s URL takes no query (?...)", rawURL, u.Scheme)
	}
	switch u.Scheme {
	case "file":
		p := u.Path
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("store: %q: a file URL names a local path (file:///abs/dir), not host %q", rawURL, u.Host)
		}
		if p == "" {
			return nil, fmt.Errorf("store: %q: no directory (want file:///abs/dir)", rawURL)
		}
		return NewDir(filepath.FromSlash(p))
	case "s3", "gs", "azblob", "mem":
	default:
		return nil, fmt.Errorf("store: %q: unknown scheme %q (want file, s3, gs, azblob or mem)", rawURL, u.Scheme)
	}
	if u.Scheme != "mem" && u.Host == "" {
		return nil, fmt.Errorf("store: %q: no bucket name (want %s://BUCKET[/PREFIX])", rawURL, u.Scheme)
	}
	prefix := strings.Trim(u.Path, "/")
	u.Path = ""
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", rawURL, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return NewBucket(b, rawURL), nil
}
