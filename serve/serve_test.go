package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/loop"
	"github.com/palace-chess/palace/loop/looptest"
	"github.com/palace-chess/palace/nn"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/rules"
	"github.com/palace-chess/palace/rundir"
	"github.com/palace-chess/palace/store"
)

func TestMain(m *testing.M) {
	if os.Getenv("PALACE_BLAS") == "" {
		os.Setenv("PALACE_BLAS", "off")
	}
	code := m.Run()
	if tiny.dir != "" {
		os.RemoveAll(tiny.dir)
	}
	os.Exit(code)
}

// tiny is loop's tiny run (two generations), made once for every test
// that reads a run.
var tiny struct {
	once sync.Once
	dir  string
	err  error
}

func tinyRun(t *testing.T) string {
	t.Helper()
	tiny.once.Do(func() {
		dir, err := os.MkdirTemp("", "palace-serve-test-")
		if err != nil {
			tiny.err = err
			return
		}
		tiny.dir = filepath.Join(dir, "run")
		c, err := loop.ParseConfig([]byte(looptest.TinyYAML), "tiny")
		if err != nil {
			tiny.err = err
			return
		}
		st, err := store.NewDir(tiny.dir)
		if err != nil {
			tiny.err = err
			return
		}
		tiny.err = loop.Run(context.Background(), st, c, loop.Options{})
	})
	if tiny.err != nil {
		t.Fatal(tiny.err)
	}
	return tiny.dir
}

// copyTree copies the tiny run into a directory of the test's own, which
// a test may damage.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func newServer(t *testing.T, opt Options) *httptest.Server {
	t.Helper()
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

func get(t *testing.T, ts *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := ts.Client().Get(ts.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// snapshot lists every file under dir with its size and time: what a
// read-only server must leave as it was.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = info.Mode().String() + " " + info.ModTime().String() + " " + string(rune(info.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPagesOverARun(t *testing.T) {
	run := copyTree(t, tinyRun(t))
	before := snapshot(t, run)
	ts := newServer(t, Options{Paths: []string{run}, Version: "test"})

	code, body := get(t, ts, "/")
	if code != 200 || !strings.Contains(body, run) || !strings.Contains(body, `href="/run/0/"`) {
		t.Fatalf("index: %d\n%s", code, body)
	}
	code, body = get(t, ts, "/browse/0/")
	if code != 200 || !strings.Contains(body, "selfplay/") || !strings.Contains(body, "metrics.jsonl") {
		t.Fatalf("browse: %d\n%s", code, body)
	}

	// The dashboard's data: both generations, each gate, the time split.
	code, body = get(t, ts, "/api/run/0/")
	if code != 200 {
		t.Fatalf("api: %d %s", code, body)
	}
	var v runView
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	st, _ := store.NewDir(run)
	ms, err := loop.ReadMetrics(st)
	if err != nil {
		t.Fatal(err)
	}
	games := 0
	for _, m := range ms {
		if m.Stage == loop.StageSelfplay {
			games += m.Games
		}
	}
	if len(v.Generations) != 2 || v.Games != games || v.Best == nil || v.State != "generation 2, selfplay" ||
		v.Split[loop.StageSelfplay] <= 0 || v.Split[loop.StageTrain] <= 0 || v.Split[loop.StageGate] <= 0 {
		t.Fatalf("run view: %+v", v)
	}
	for _, g := range v.Generations {
		if g.Gate == nil || g.Gate.Wins+g.Gate.Draws+g.Gate.Losses == 0 || g.PolicyLoss == nil || g.Games == 0 {
			t.Errorf("generation %d: %+v", g.Gen, g)
		}
	}
	if len(v.Workers) != 0 {
		t.Errorf("a local run shows workers: %+v", v.Workers)
	}
	// A distributed run's workers files (the cluster's tests check what
	// the roles write).
	var wf rundir.Workers
	wf.Put(rundir.WorkersEntry{Generation: 0, Kind: "selfplay", Key: "selfplay/gen-0000", Time: time.Now(),
		Workers: map[string]rundir.WorkerJobs{"host-a": {Jobs: 3, Games: 24, Positions: 700}, "host-b": {Jobs: 1, Games: 8}}})
	data, _ := json.Marshal(&wf)
	os.MkdirAll(filepath.Join(run, rundir.WorkersDir), 0o755)
	os.WriteFile(filepath.Join(run, rundir.WorkersKey("trainer")), data, 0o644)
	before = snapshot(t, run)
	_, body = get(t, ts, "/api/run/0/")
	v = runView{}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Workers) != 2 || v.Workers[0].Name != "host-a" || v.Workers[0].Jobs["selfplay"] != 3 || v.Workers[1].Games != 8 {
		t.Errorf("workers: %+v", v.Workers)
	}
	code, body = get(t, ts, "/run/0/")
	if code != 200 || !strings.Contains(body, `id="run-data"`) || !strings.Contains(body, `data-api="/api/run/0/"`) {
		t.Fatalf("dashboard: %d\n%s", code, body)
	}

	// The games list holds every game Collect reads; the viewer replays one.
	var want []gamerec.Game
	if err := rundir.Collect([]string{run}, func(g *gamerec.Game, rs *rules.RuleSet) error {
		want = append(want, *g)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	code, body = get(t, ts, "/games/0/")
	if code != 200 || strings.Count(body, `<a href="/game/0/?i=`) != len(want) {
		t.Fatalf("games list: %d, want %d games\n%s", code, len(want), body)
	}
	code, body = get(t, ts, "/game/0/?i=2")
	if code != 200 {
		t.Fatalf("game: %d\n%s", code, body)
	}
	gv := gameData(t, body, "game-data")
	if len(gv.Boards) != want[1].Plies+1 || len(gv.Moves) != want[1].Plies || gv.Result != want[1].Result {
		t.Fatalf("game 2: %d boards, %d moves for %d plies", len(gv.Boards), len(gv.Moves), want[1].Plies)
	}
	if gv.Boards[0] != "rnbakabnr..........c.....c.p.p.p.p.p..................P.P.P.P.P.C.....C..........RNBAKABNR" {
		t.Errorf("start board %s", gv.Boards[0])
	}
	searched := 0
	for _, m := range gv.Moves {
		if m.Text["iccs"] == "" || m.Text["wxf"] == "" || m.Text["chinese"] == "" {
			t.Fatalf("move without its notations: %+v", m)
		}
		if m.Value != nil && len(m.Visits) > 0 {
			searched++
		}
	}
	if searched == 0 {
		t.Error("a self-play game shows no search values")
	}
	if code, body = get(t, ts, "/game/0/?i=100000"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "holds no game 100000") {
		t.Errorf("a game past the end: %d\n%s", code, body)
	}

	if after := snapshot(t, run); len(after) != len(before) {
		t.Errorf("the server changed the served tree: %d entries, was %d", len(after), len(before))
	} else {
		for p, s := range before {
			if after[p] != s {
				t.Errorf("%s changed: %s, was %s", p, after[p], s)
			}
		}
	}
}

func gameData(t *testing.T, body, id string) gameView {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="` + id + `"[^>]*>(.*?)</script>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in\n%s", id, body)
	}
	var v gameView
	if err := json.Unmarshal([]byte(m[1]), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestExplorerAgreesWithOpenings: the explorer's counts at the start and
// one move down are the openings package's, and each move's games link
// lists as many games as it counts.
func TestExplorerAgreesWithOpenings(t *testing.T) {
	run := tinyRun(t)
	ts := newServer(t, Options{Paths: []string{run}})
	tree, err := openings.Build([]string{run}, openings.Filter{Depth: defaultExplorerDepth})
	if err != nil {
		t.Fatal(err)
	}
	v, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	root := &v.Positions[v.Roots[0]]
	code, body := get(t, ts, "/explorer/0/")
	if code != 200 {
		t.Fatalf("explorer: %d\n%s", code, body)
	}
	rows := regexp.MustCompile(`<tr data-move="([a-i0-9]+)"><td><a href="([^"]+)" class="down">[^<]*</a></td><td class="n">(\d+)</td>`).FindAllStringSubmatch(body, -1)
	if len(rows) != len(root.Moves) || len(rows) == 0 {
		t.Fatalf("%d moves shown, the tree has %d", len(rows), len(root.Moves))
	}
	for i, m := range root.Moves {
		if rows[i][1] != m.Move || rows[i][3] != itoa(m.Count) {
			t.Errorf("move %d: %s %s, the tree says %s %d", i, rows[i][1], rows[i][3], m.Move, m.Count)
		}
	}
	// Down one move, then its games.
	first := root.Moves[0]
	code, body = get(t, ts, htmlUnescape(rows[0][2]))
	next := &v.Positions[first.Next]
	if code != 200 || !strings.Contains(body, itoa(next.Games)+" games reached this position") {
		t.Fatalf("after %s: %d, want %d games\n%s", first.Move, code, next.Games, body)
	}
	gamesLink := regexp.MustCompile(`<td><a href="(/games/0/\?[^"]+)">games</a></td>`).FindStringSubmatch(body)
	if len(next.Moves) > 0 {
		if gamesLink == nil {
			t.Fatalf("no games link in\n%s", body)
		}
		code, list := get(t, ts, htmlUnescape(gamesLink[1]))
		if code != 200 || !strings.Contains(list, "<p id=\"count\">"+itoa(next.Moves[0].Count)+" games") {
			t.Fatalf("games of %s %s: %d, want %d\n%s", first.Move, next.Moves[0].Move, code, next.Moves[0].Count, list)
		}
	}
}

// TestExplorerUnplayedMove: a legal move no game played shows its
// position with no games (the board stays clickable); an illegal one is
// an error page.
func TestExplorerUnplayedMove(t *testing.T) {
	ts := newServer(t, Options{Paths: []string{tinyRun(t)}})
	tree, err := openings.Build([]string{tinyRun(t)}, openings.Filter{Depth: defaultExplorerDepth})
	if err != nil {
		t.Fatal(err)
	}
	rs := tree.RuleSets()[0]
	q := "?fen=" + url.QueryEscape(rules.XiangqiStartFEN) + "&rs=" + url.QueryEscape(rs)
	code, body := get(t, ts, "/explorer/0/"+q+"&moves=a1a2+a10a9+a2a1+a9a10+i1i2")
	if code != 200 || !strings.Contains(body, "No game reached this position") || !strings.Contains(body, " 0 games reached this position") {
		t.Fatalf("an unplayed line: %d\n%s", code, body)
	}
	if !strings.Contains(body, `id="explorer-data"`) {
		t.Error("the board of an unplayed position is not drawn")
	}
	if code, body := get(t, ts, "/explorer/0/"+q+"&moves=a1a9"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "illegal") {
		t.Errorf("an illegal move: %d\n%s", code, body)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func htmlUnescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&#43;", "+", "&#34;", `"`, "&lt;", "<", "&gt;", ">").Replace(s)
}

// TestNothingOutsideTheServedPaths: parent references, encoded slashes,
// symbolic links and unknown roots are all the same 404, and a served
// directory that holds a link is not walked.
func TestNothingOutsideTheServedPaths(t *testing.T) {
	run := copyTree(t, tinyRun(t))
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.games.jsonl")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(run, "out")); err != nil {
		t.Fatal(err)
	}
	ts := newServer(t, Options{Paths: []string{run}})
	for _, path := range []string{
		"/browse/0/..", "/browse/0/../..", "/browse/0/selfplay/../..", "/games/0/%2e%2e/x", "/browse/0/selfplay%2F..%2F..",
		"/browse/0/out", "/games/0/out/secret.games.jsonl", "/browse/1/", "/browse/01/", "/browse/-1/", "/browse/x/",
		"/game/0/out/secret.games.jsonl?i=1", "/browse/0/config.yaml", "/browse/0/selfplay%5C..", "/browse/0//etc",
		"/browse/0/nope",
	} {
		code, body := get(t, ts, path)
		if code != http.StatusNotFound || strings.Contains(body, "secret") {
			t.Errorf("%s: %d %q", path, code, body)
		}
	}
	// The run itself holds the link now: its games are not read.
	code, body := get(t, ts, "/games/0/")
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "symbolic link") {
		t.Errorf("a directory holding a link: %d\n%s", code, body)
	}
}

func TestToken(t *testing.T) {
	run := tinyRun(t)
	ts := newServer(t, Options{Paths: []string{run}, Token: "0123456789abcdef"})
	if code, _ := get(t, ts, "/"); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, _ := get(t, ts, "/?token=wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", code)
	}
	resp, err := ts.Client().Get(ts.URL + "/?token=0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == tokenCookie {
			cookie = c
		}
	}
	if resp.StatusCode != 200 || cookie == nil || !cookie.HttpOnly {
		t.Fatalf("the token: %d, cookie %v", resp.StatusCode, cookie)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/browse/0/", nil)
	req.AddCookie(cookie)
	if resp, err := ts.Client().Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("the cookie: %v %v", resp, err)
	}
	req, _ = http.NewRequest("GET", ts.URL+"/api/run/0/", nil)
	req.Header.Set("Authorization", "Bearer 0123456789abcdef")
	if resp, err := ts.Client().Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("the bearer header: %v %v", resp, err)
	}
}

// TestDamagedFiles: a half-written metrics line or games file gives a
// page naming the file, never a crash or an empty page.
func TestDamagedFiles(t *testing.T) {
	run := copyTree(t, tinyRun(t))
	ts := newServer(t, Options{Paths: []string{run}})
	f, err := os.OpenFile(filepath.Join(run, rundir.MetricsKey), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"generation": 2, "stage": "selfp`)
	f.Close()
	for _, path := range []string{"/run/0/", "/api/run/0/"} {
		code, body := get(t, ts, path)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, "metrics.jsonl line") {
			t.Errorf("%s: %d\n%s", path, code, body)
		}
	}
	// Another copy, its metrics whole and a games file cut short.
	run = copyTree(t, tinyRun(t))
	ts = newServer(t, Options{Paths: []string{run}})
	var gamesFile string
	filepath.WalkDir(run, func(p string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(p, ".games.jsonl") && gamesFile == "" {
			gamesFile = p
		}
		return nil
	})
	f, err = os.OpenFile(gamesFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"rule_set": "xiangqi@`)
	f.Close()
	rel, _ := filepath.Rel(run, gamesFile)
	for _, path := range []string{"/games/0/", "/games/0/" + filepath.ToSlash(rel), "/explorer/0/"} {
		code, body := get(t, ts, path)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, filepath.Base(gamesFile)) {
			t.Errorf("%s: %d\n%s", path, code, body)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("no paths taken")
	}
	if _, err := New(Options{Paths: []string{filepath.Join(t.TempDir(), "missing")}}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing path: %v", err)
	}
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:1": true, "[::1]:80": true, "0.0.0.0:8080": false, ":8080": false, "10.0.0.1:80": false, "x": false} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) = %v", addr, !want)
		}
	}
}

func postJSON(t *testing.T, ts *httptest.Server, path, body string) (int, playState, string) {
	t.Helper()
	resp, err := ts.Client().Post(ts.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var st playState
	_ = json.Unmarshal(data, &st)
	return resp.StatusCode, st, string(data)
}

// TestPlay: a person's moves are checked by the rules, the engine
// answers each, passes are offered in janggi, the game saves as PGN and
// .gib, and the sessions are bounded.
func TestPlay(t *testing.T) {
	ts := newServer(t, Options{Paths: []string{t.TempDir()}, MaxSessions: 2})
	code, st, body := postJSON(t, ts, "/api/play", `{"rules": "xiangqi", "net": "none", "side": "white", "visits": 16}`)
	if code != 200 || st.ID == "" || st.ToMove != "white" || len(st.Legal) != 44 || len(st.Moves) != 0 {
		t.Fatalf("start: %d %s", code, body)
	}
	if code, _, body := postJSON(t, ts, "/api/play/"+st.ID+"/move", `{"move": "h3h9"}`); code != http.StatusUnprocessableEntity || !strings.Contains(body, "not legal") {
		t.Fatalf("an illegal move: %d %s", code, body)
	}
	code, st, body = postJSON(t, ts, "/api/play/"+st.ID+"/move", `{"move": "h3e3"}`)
	if code != 200 || len(st.Moves) != 2 || st.Moves[0].Text["iccs"] != "h2e2" || st.Engine == nil || st.Engine.Visits == 0 || st.ToMove != "white" {
		t.Fatalf("a move: %d %s", code, body)
	}
	resp, err := ts.Client().Get(ts.URL + "/api/play/" + st.ID + "/save/pgn")
	if err != nil {
		t.Fatal(err)
	}
	pgnText, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(pgnText), "[Red \"you\"]") && !strings.Contains(string(pgnText), "you") {
		t.Fatalf("PGN: %d\n%s", resp.StatusCode, pgnText)
	}
	if code, _, body := postJSON(t, ts, "/api/play/"+st.ID+"/move", `{"move": "resign"}`); code != 200 || !strings.Contains(body, `"result":"0-1"`) {
		t.Fatalf("resign: %d %s", code, body)
	}

	// Janggi, the engine first: Han's reply may pass.
	code, st, body = postJSON(t, ts, "/api/play", `{"rules": "janggi", "net": "none", "side": "black", "visits": 8}`)
	if code != 200 || len(st.Moves) != 1 || st.ToMove != "black" {
		t.Fatalf("janggi as Han: %d %s", code, body)
	}
	passes := 0
	for _, m := range st.Legal {
		if m.Pass {
			passes++
		}
	}
	if passes != 1 || st.Moves[0].Text["janggi"] == "" {
		t.Fatalf("janggi's moves: %d passes offered, %+v", passes, st.Moves[0])
	}
	code, st, body = postJSON(t, ts, "/api/play/"+st.ID+"/move", `{"move": "pass"}`)
	if code != 200 || len(st.Moves) != 3 || !st.Moves[1].Pass {
		t.Fatalf("a pass: %d %s", code, body)
	}
	resp, err = ts.Client().Get(ts.URL + "/api/play/" + st.ID + "/save/gib")
	if err != nil {
		t.Fatal(err)
	}
	gibText, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(gibText), "2. 한수쉼") {
		t.Fatalf(".gib: %d\n%s", resp.StatusCode, gibText)
	}

	// Two sessions are held: the resigned game makes room for a third,
	// and a fourth is refused while the others go on.
	if code, _, body := postJSON(t, ts, "/api/play", `{"rules": "xiangqi", "net": "none", "visits": 8}`); code != 200 {
		t.Errorf("a third session, the first over: %d %s", code, body)
	}
	if code, _, body := postJSON(t, ts, "/api/play", `{"rules": "xiangqi", "net": "none", "visits": 8}`); code != http.StatusUnprocessableEntity || !strings.Contains(body, "max-sessions") {
		t.Errorf("a fourth session: %d %s", code, body)
	}
	for _, bad := range []string{`{"rules": "chess"}`, `{"rules": "xiangqi", "visits": -1}`, `{"rules": "xiangqi", "net": "0/../x.palnet"}`, `{"rules": "xiangqi", "side": "red"}`, `{`} {
		if code, _, body := postJSON(t, ts, "/api/play", bad); code == 200 {
			t.Errorf("%s taken: %s", bad, body)
		}
	}
	resp, err = ts.Client().Post(ts.URL+"/api/play", "text/plain", strings.NewReader(`{"rules": "xiangqi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Error("a form post (not JSON) started a game")
	}
	if code, body := get(t, ts, "/play"); code != 200 || !strings.Contains(body, `id="play-form"`) {
		t.Errorf("the play page: %d", code)
	}
}

// TestPlayClock: with a clock, the engine spends its own time and a
// person whose clock runs out loses on time.
func TestPlayClock(t *testing.T) {
	ts := newServer(t, Options{Paths: []string{t.TempDir()}})
	code, st, body := postJSON(t, ts, "/api/play", `{"rules": "xiangqi", "net": "none", "side": "black", "clock_seconds": 2, "increment_seconds": 0.1}`)
	if code != 200 || st.ClockMS == nil || len(st.Moves) != 1 || st.ClockMS[0] >= 2100 || st.ClockMS[0] < 1000 || st.Engine.Visits == 0 {
		t.Fatalf("a clock game, the engine first: %d %s", code, body)
	}
	time.Sleep(2200 * time.Millisecond)
	code, st, body = postJSON(t, ts, "/api/play/"+st.ID+"/move", `{"move": "h10g8"}`)
	if code != 200 || !st.Over || st.Result != "1-0" || st.Reason != "time" || len(st.Moves) != 1 {
		t.Fatalf("a move after the clock ran out: %d %s", code, body)
	}
	if code, _, body := postJSON(t, ts, "/api/play", `{"rules": "xiangqi", "clock_seconds": 60, "move_time_ms": 100}`); code == 200 {
		t.Errorf("a clock and seconds a move both taken: %s", body)
	}
}

// TestExperimentAndLadderPages: an experiment's record shows both rule
// sets with the switch that differs and the analysis palace experiment
// prints; a ladder directory its rating and each rung's games.
func TestExperimentAndLadderPages(t *testing.T) {
	dir := t.TempDir()
	a, b := rules.MustPreset("janggi").WithMaxPlies(40), rules.MustPreset("janggiclassic").WithMaxPlies(40)
	player, err := arena.NewSearch("uniform/sims=4", experiment.SearchParams(4),
		func() (nn.Evaluator, error) { return nn.NewUniform(encode.InputSize, encode.PolicySize()), nil }, arena.SearchOptions{Evaluators: 1})
	if err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(dir, "exp.jsonl")
	c := experiment.Config{A: a, B: b, Player: player, Settings: arena.Settings{Pairs: 4, OpeningPlies: 2, Concurrency: 2}, Seed: 3, Records: records}
	if _, err := experiment.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	h, recs, err := experiment.ReadRecords(records)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	experiment.Analyze(h, recs).WriteText(&text)

	// A ladder: Fairy-Stockfish at 10 nodes, refitted from the games kept
	// with the scale.
	ladderDir := filepath.Join(dir, "ladder")
	os.MkdirAll(ladderDir, 0o755)
	scale, err := ladder.BuiltinScale(rules.MustPreset("xiangqi"))
	if err != nil {
		t.Fatal(err)
	}
	check := filepath.Join("..", "ladder", "calibration", "xiangqi", "check-10")
	rating, err := ladder.Climb(scale, 40, func(k int) ([]arena.GameRecord, error) {
		file := ladder.RungFile(scale.Rungs[k])
		data, err := os.ReadFile(filepath.Join(check, file))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(ladderDir, file), data, 0o644); err != nil {
			return nil, err
		}
		_, recs, err := arena.ReadRecords(filepath.Join(check, file))
		return recs, err
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(rating)
	os.WriteFile(filepath.Join(ladderDir, ladder.ResultFile), data, 0o644)

	ts := newServer(t, Options{Paths: []string{dir}})
	code, body := get(t, ts, "/experiment/0/exp.jsonl")
	if code != 200 || !strings.Contains(body, `<tr class="differs"><td>name</td>`) || !strings.Contains(body, html.EscapeString(strings.TrimSpace(text.String()))[:40]) {
		t.Fatalf("experiment: %d\n%s", code, body)
	}
	code, body = get(t, ts, "/browse/0/")
	if code != 200 || !strings.Contains(body, `href="/experiment/0/exp.jsonl"`) || !strings.Contains(body, `href="/ladder/0/ladder"`) {
		t.Fatalf("browse: %d\n%s", code, body)
	}
	code, body = get(t, ts, "/ladder/0/ladder")
	if code != 200 || strings.Count(body, `">games</a>`) != len(rating.Rungs) || !strings.Contains(html.UnescapeString(body), fmt.Sprintf("%+.0f [", float64(rating.Elo))) {
		t.Fatalf("ladder: %d, %d rungs\n%s", code, len(rating.Rungs), body)
	}
	if code, body := get(t, ts, "/games/0/ladder/"+ladder.RungFile(scale.Rungs[0])); code != 200 || !strings.Contains(body, "80 games") {
		t.Errorf("a rung's games: %d\n%s", code, body)
	}
}

// TestCompareListsRuns: the runs right below a served directory are
// offered for the overlay, each with its data's address.
func TestCompareListsRuns(t *testing.T) {
	parent := t.TempDir()
	for _, name := range []string{"a", "b"} {
		src := copyTree(t, tinyRun(t))
		if err := os.Rename(src, filepath.Join(parent, name)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(parent, "not-a-run"), 0o755)
	ts := newServer(t, Options{Paths: []string{parent}})
	code, body := get(t, ts, "/compare")
	if code != 200 || strings.Count(body, `name="run"`) != 2 || !strings.Contains(body, `data-api="/api/run/0/a"`) || !strings.Contains(body, `data-api="/api/run/0/b"`) {
		t.Fatalf("compare: %d\n%s", code, body)
	}
	if code, body := get(t, ts, "/compare?run=0/b"); code != 200 || strings.Count(body, " checked") != 1 {
		t.Fatalf("one run chosen: %d\n%s", code, body)
	}
	if code, _ := get(t, ts, "/api/run/0/b"); code != 200 {
		t.Errorf("a run below the served directory: %d", code)
	}
}
