package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/palace-chess/palace/rules"
)

// A writer that is aborted, fails, or dies before Close leaves the final
// name and the manifest untouched; readers, Verify and samplers see only
// completed, listed shards.
func TestWriterCrashSafety(t *testing.T) {
	dir := t.TempDir()
	rs := rules.MustPreset("xiangqi")
	recs := makeRecords(rs, 8, 120)
	done := filepath.Join(dir, "000.shard")
	writeShard(t, done, rs, recs[:60], WithManifest(), WithBlockRecords(16))
	manifest := mustRead(t, filepath.Join(dir, ManifestName))

	// Aborted: nothing left at all.
	w, err := NewWriter(filepath.Join(dir, "001.shard"), testHeader(rs), WithManifest())
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs[60:] {
		if err := w.Write(&recs[60+i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Abort()
	if err := w.Write(&recs[0]); err == nil {
		t.Error("write after Abort accepted")
	}
	if names := slices.DeleteFunc(listDir(t, dir), func(n string) bool { return n == lockName }); !slices.Equal(names, []string{"000.shard", ManifestName}) {
		t.Errorf("after Abort the directory holds %v", names)
	}

	// Killed before Close: a hidden temporary file, ignored by everyone.
	w, err = NewWriter(filepath.Join(dir, "002.shard"), testHeader(rs), WithManifest(), WithBlockRecords(8))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		if err := w.Write(&recs[60+i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "002.shard")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a shard being written is visible under its name: %v", err)
	}
	if string(mustRead(t, filepath.Join(dir, ManifestName))) != string(manifest) {
		t.Error("the manifest changed while a shard was being written")
	}
	m, err := ReadManifest(dir)
	if err != nil || len(m.Shards) != 1 || m.Records() != 60 {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	if problems, err := Verify(dir); err != nil || len(problems) != 0 {
		t.Errorf("Verify with a writer in progress: %v %v", problems, err)
	}
	defer w.Abort()

	// A shard completed but not listed (killed between rename and
	// listing): Verify reports it, samplers ignore it.
	writeShard(t, filepath.Join(dir, "003.shard"), rs, recs[90:], WithBlockRecords(8))
	problems, err := Verify(dir)
	if err != nil || len(problems) != 1 || problems[0].Name != "003.shard" || !errors.Is(problems[0].Err, ErrUnlisted) {
		t.Errorf("Verify with an unlisted shard: %v %v", problems, err)
	}
	s, err := NewSampler([]string{dir}, WithWindow(10, 0.65, 0.4), WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Total() != 60 {
		t.Errorf("sampler sees %d positions, want the listed 60", s.Total())
	}
	batch := make([]Sample, 200)
	if err := s.Fill(batch); err != nil {
		t.Fatal(err)
	}
	for _, x := range batch {
		if x.Shard != done {
			t.Fatalf("sample from %s", x.Shard)
		}
	}

	// A record that fails its checks is refused without failing the
	// writer; a closed writer's name cannot be taken again.
	if _, err := NewWriter(done, testHeader(rs)); err == nil {
		t.Error("a second writer to a completed shard's name was accepted")
	}

	// A name that appears while a shard is written is not replaced.
	w2, err := NewWriter(filepath.Join(dir, "004.shard"), testHeader(rs), WithManifest())
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(&recs[0]); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "004.shard"), []byte("someone else's"))
	if err := w2.Close(); err == nil || !strings.Contains(err.Error(), "004.shard") {
		t.Errorf("Close over an existing file: %v", err)
	}
	if string(mustRead(t, filepath.Join(dir, "004.shard"))) != "someone else's" {
		t.Error("Close replaced a file that appeared meanwhile")
	}
	if string(mustRead(t, filepath.Join(dir, ManifestName))) != string(manifest) {
		t.Error("a failed Close changed the manifest")
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, "004.shard.tmp") {
			t.Errorf("a failed Close left %s", name)
		}
	}
}

// Verify reads every listed shard and reports each damaged or missing one
// by name.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	rs := rules.MustPreset("janggi")
	recs := makeRecords(rs, 21, 150)
	for i := range 3 {
		writeShard(t, filepath.Join(dir, fmt.Sprintf("%03d.shard", i)), rs, recs[50*i:50*i+50], WithManifest(), WithBlockRecords(10))
	}
	if problems, err := Verify(dir); err != nil || len(problems) != 0 {
		t.Fatalf("Verify of sound shards: %v %v", problems, err)
	}
	m, _ := ReadManifest(dir)
	if m.Shards[1].Records != 50 || m.Shards[1].FirstGame != recs[50].GameID || m.Shards[1].LastGame != recs[99].GameID {
		t.Errorf("manifest entry %+v", m.Shards[1])
	}
	games := int64(0)
	for _, s := range m.Shards {
		games += s.Games
	}
	if games < 3 {
		t.Errorf("%d games listed", games)
	}
	path := filepath.Join(dir, "001.shard")
	data := mustRead(t, path)
	data[len(data)/2] ^= 4
	writeFile(t, path, data)
	os.Remove(filepath.Join(dir, "002.shard"))
	problems, err := Verify(dir)
	if err != nil || len(problems) != 2 {
		t.Fatalf("Verify: %v %v", problems, err)
	}
	if problems[0].Name != "001.shard" || !errors.Is(problems[0].Err, ErrCorrupt) || !strings.Contains(problems[0].Err.Error(), path) {
		t.Errorf("damaged shard reported as %v", problems[0])
	}
	if problems[1].Name != "002.shard" || !errors.Is(problems[1].Err, os.ErrNotExist) {
		t.Errorf("missing shard reported as %v", problems[1])
	}
}

// CheckSums reads each listed shard once and names the first whose size
// or SHA-256 is not the manifest's: a shard swapped for another one, of
// sound records, is caught (issue 47), as is a missing one.
func TestCheckSums(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	rs := rules.MustPreset("janggi")
	recs := makeRecords(rs, 21, 150)
	for i := range 2 {
		writeShard(t, filepath.Join(dir, fmt.Sprintf("%03d.shard", i)), rs, recs[50*i:50*i+50], WithManifest())
	}
	writeShard(t, filepath.Join(other, "000.shard"), rs, recs[100:], WithManifest())
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckSums(); err != nil {
		t.Fatalf("sound shards: %v", err)
	}
	path := filepath.Join(dir, "001.shard")
	writeFile(t, path, mustRead(t, filepath.Join(other, "000.shard")))
	if err := m.CheckSums(); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "the manifest says") {
		t.Errorf("a swapped shard: %v", err)
	}
	os.Remove(path)
	if err := m.CheckSums(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing shard: %v", err)
	}
}

// Writers listing shards in one directory at once all get listed.
func TestManifestConcurrentAdds(t *testing.T) {
	dir := t.TempDir()
	rs := rules.MustPreset("xiangqi")
	recs := makeRecords(rs, 4, 40)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := NewWriter(filepath.Join(dir, fmt.Sprintf("%d.shard", i)), testHeader(rs), WithManifest())
			if err != nil {
				errs[i] = err
				return
			}
			for k := range recs {
				if err := w.Write(&recs[k]); err != nil {
					errs[i] = err
					w.Abort()
					return
				}
			}
			errs[i] = w.Close()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	m, err := ReadManifest(dir)
	if err != nil || len(m.Shards) != len(errs) || m.Records() != int64(len(errs)*len(recs)) {
		t.Fatalf("manifest lists %d shards, %v", len(m.Shards), err)
	}
	for _, name := range listDir(t, dir) {
		if strings.Contains(name, ".tmp") {
			t.Errorf("left over: %s", name)
		}
	}
}

// A manifest that is damaged or of another version is refused by name.
func TestManifestRejects(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ManifestName)
	for _, tc := range []struct{ body, want string }{
		{`{"version": 2, "shards": []}`, "manifest version 2"},
		{`{"version": 1, "shards": [{"name": "../x.shard"}]}`, "plain file name"},
		{`{"version": 1, "shards": [{"name": "a"}, {"name": "a"}]}`, "twice"},
		{`{"version": 1, "shards": [`, "manifest"},
	} {
		writeFile(t, path, []byte(tc.body))
		_, err := ReadManifest(dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", tc.body, err)
		}
	}
	m := &Manifest{Version: ManifestVersion, dir: t.TempDir()}
	if err := m.Add(ShardInfo{Name: "nothere.shard"}); err == nil {
		t.Error("listing a missing shard accepted")
	}
}

// Describe, from a shard's bytes alone, lists it as its writer did; a
// damaged shard is an error naming it.
func TestDescribe(t *testing.T) {
	rs := rules.MustPreset("xiangqi")
	recs := makeRecords(rs, 8, 90)
	path := filepath.Join(t.TempDir(), "000.shard")
	want := writeShard(t, path, rs, recs, WithBlockRecords(16))
	data := mustRead(t, path)
	got, err := Describe("000.shard", data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Added.IsZero() {
		t.Error("Added is zero")
	}
	got.Added = want.Added
	if got != want {
		t.Errorf("Describe:\n%+v\nthe writer:\n%+v", got, want)
	}
	if want.Games < 2 || want.FirstGame == want.LastGame {
		t.Fatalf("the test's shard has %d games (%d to %d); want several", want.Games, want.FirstGame, want.LastGame)
	}
	bad := slices.Clone(data)
	bad[len(bad)/2] ^= 0xff
	if _, err := Describe("000.shard", bad); err == nil || !strings.Contains(err.Error(), "000.shard") {
		t.Errorf("a damaged shard: %v, want an error naming it", err)
	}
}
