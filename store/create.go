package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Creator is a Store that can write a key only if it holds nothing:
// the first of several writers of one key wins, and the others learn it.
// Distributed jobs use it so that a job played twice (its worker thought
// dead) never replaces an artifact that a manifest already describes.
type Creator interface {
	Store
	// Create writes data to key atomically unless the key exists; created
	// says whether it did.
	Create(key string, data []byte) (created bool, err error)
}

// Create implements Creator: a hidden temporary file, fsync, then a hard
// link to the key's name, which fails when the name exists (a rename would
// replace it).
func (d *Dir) Create(key string, data []byte) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	p := d.path(key)
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+filepath.Base(p)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, fmt.Errorf("store: %w", err)
	}
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("store: writing %s: %w", key, err)
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("store: %w", err)
	}
	if df, err := os.Open(dir); err == nil {
		df.Sync() //nolint:errcheck // best effort, as atomicfile does
		df.Close()
	}
	return true, nil
}

// Create implements Creator through the store's own precondition
// (If-None-Match on S3 and Azure, a generation match on GCS).
func (s *Bucket) Create(key string, data []byte) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	err := s.b.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: true})
	if err == nil {
		return true, nil
	}
	if c := gcerrors.Code(err); c == gcerrors.FailedPrecondition || c == gcerrors.AlreadyExists {
		return false, nil
	}
	return false, fmt.Errorf("store: %s: writing %s: %w", s.name, key, err)
}

// Create writes data to key unless it exists: through Creator when st is
// one, else (a Store of another kind) by looking first, which leaves a
// window for two writers.
func Create(st Store, key string, data []byte) (bool, error) {
	if c, ok := st.(Creator); ok {
		return c.Create(key, data)
	}
	if _, err := st.Read(key); err == nil {
		return false, nil
	} else if !errors.Is(err, ErrNotExist) {
		return false, err
	}
	return true, st.Write(key, data)
}
