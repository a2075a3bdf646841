package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/openings"
	"github.com/palace-chess/palace/pgn"
	"github.com/palace-chess/palace/rules"
)

// browserPath is the headless browser the end-to-end test drives:
// Debian's chromium, or another Chrome on PATH.
func browserPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("PALACE_REQUIRE_BROWSER") != "" {
		t.Fatal("no browser on PATH (chromium, chromium-browser, google-chrome); PALACE_REQUIRE_BROWSER is set, so this test must run: apt-get install chromium")
	}
	t.Skip("no browser on PATH: the end-to-end test of palace serve needs Debian's chromium (apt-get install chromium); CI installs it")
	return ""
}

// importSample imports the CCPD master sample (40 games) into a games
// file under dir, as palace import would.
func importSample(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join("..", "pgn", "testdata", "ccpd_sample")
	files, err := filepath.Glob(filepath.Join(src, "*.pgn"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample games in %s: %v", src, err)
	}
	var games []gamerec.Game
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		gs, errs, _ := pgn.Import(data, filepath.Base(f), pgn.Options{Encoding: pgn.AutoEncoding, CutAtRulesEnd: true})
		if len(errs) > 0 {
			t.Fatalf("%s: %v", f, errs)
		}
		games = append(games, gs...)
	}
	xq := rules.MustPreset("xiangqi")
	hdr, err := gamerec.NewHeader(games, map[string]*rules.RuleSet{xq.String(): xq})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "masters.jsonl")
	if err := gamerec.Write(path, hdr, games); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBrowser drives palace serve in a real headless browser as a person
// would: the dashboard of a tiny run, a game stepped with the arrow keys,
// two moves down the opening tree, three moves played against the
// engine. With PALACE_SCREENSHOTS=DIR it saves each page there (README's
// screenshots come from it).
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test starts chromium")
	}
	exe := browserPath(t)
	run := tinyRun(t)
	masters := importSample(t, t.TempDir())
	ts := newServer(t, Options{Paths: []string{run, masters}, Version: "test"})
	shots := os.Getenv("PALACE_SCREENSHOTS")

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The browser starts on the first action; only later ones get a deadline.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	eval := func(what, js string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		v, err := chromedp.Run(sctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	// waitFor polls a JavaScript condition; an error in between (a page
	// still loading) is another try.
	waitFor := func(what, cond string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		var last error
		for time.Now().Before(deadline) {
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			ok, err := chromedp.Run(sctx, chromedp.Evaluate[bool](cond))
			cancel()
			if err == nil && ok {
				return
			}
			last = err
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: waiting for %s: %v", what, cond, last)
	}
	shot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		// A page that has just loaded may not be laid out yet: try again.
		var png []byte
		var err error
		for try := 0; try < 20; try++ {
			sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			png, err = chromedp.Run(sctx, chromedp.FullScreenshot(100))
			cancel()
			if err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// 1. The dashboard draws its charts and the generations' table.
	step("dashboard", chromedp.Navigate(ts.URL+"/run/0/"))
	waitFor("dashboard", `document.querySelectorAll("#generations tbody tr").length === 2 && document.querySelector("#chart-gate svg circle") !== null && document.querySelector("#split-bar rect") !== null`)
	shot("dashboard.png")

	// 2. A game: two steps with the arrow key.
	step("game", chromedp.Navigate(ts.URL+"/game/1/?i=1"))
	waitFor("game", `document.querySelectorAll("#board .piece").length === 32`)
	step("arrow keys", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	if got := eval("ply", `document.getElementById("ply").textContent`); !strings.HasPrefix(got, "2 / ") {
		t.Fatalf("after two arrow presses the viewer shows ply %q", got)
	}
	if got := eval("highlight", `document.querySelectorAll("#moves .ply.current").length + " " + document.querySelector("#moves .ply.current").textContent`); !strings.HasPrefix(got, "1 ") {
		t.Fatalf("the current move: %q", got)
	}
	shot("game.png")

	// 3. The explorer, two moves down by clicking the most played move,
	// with the counts of the openings package.
	tree, err := openings.Build([]string{masters}, openings.Filter{Depth: defaultExplorerDepth})
	if err != nil {
		t.Fatal(err)
	}
	v, err := tree.View()
	if err != nil {
		t.Fatal(err)
	}
	pos := &v.Positions[v.Roots[0]]
	step("explorer", chromedp.Navigate(ts.URL+"/explorer/1/"))
	for k := 0; k < 2; k++ {
		waitFor("explorer", `document.querySelector("#explorer-moves a.down") !== null`)
		step("down", chromedp.Click(chromedp.CSS("#explorer-moves a.down")))
		pos = &v.Positions[pos.Moves[0].Next]
		want := strconv.Itoa(pos.Games) + " games reached this position"
		// The new page's path too: the old page's count can hold the new
		// one's as a substring (1100 games, 100 games), and a click on
		// the old page's link while the new one loads finds no node.
		waitFor("explorer", fmt.Sprintf(`document.querySelectorAll("#path a").length === %d && document.getElementById("here") !== null && document.getElementById("here").textContent.includes(%q)`, k+2, want))
	}
	if got := eval("explorer path", `document.querySelectorAll("#path a").length`+` + ""`); got != "3" {
		t.Fatalf("the explorer's path has %s links, want start and two moves", got)
	}
	shot("explorer.png")

	// 4. Play: three moves against the engine, each a click on a piece
	// and one on its target.
	step("play", chromedp.Navigate(ts.URL+"/play"),
		chromedp.SetValue(chromedp.CSS("#play-net"), "none"), chromedp.SetValue(chromedp.CSS("#play-visits"), "16"),
		chromedp.Click(chromedp.CSS("#play-start")))
	for k := 1; k <= 3; k++ {
		waitFor("play", fmt.Sprintf(`document.getElementById("play-area").dataset.session !== undefined && document.querySelectorAll("#moves .ply").length === %d`, 2*(k-1)))
		id := eval("session", `document.getElementById("play-area").dataset.session`)
		st := playStateOf(t, ts.URL+"/api/play/"+id)
		if len(st.Legal) == 0 {
			t.Fatalf("move %d: no legal move offered", k)
		}
		m := st.Legal[0]
		for _, sq := range [][2]int{m.From, m.To} {
			xy := eval("square", fmt.Sprintf(`(() => { const r = document.querySelector("#board svg").getBoundingClientRect(); const s = r.width / 420;
				return (r.left + (34 + %d * 44) * s) + " " + (r.top + (34 + (9 - %d) * 44) * s); })()`, sq[0], sq[1]))
			var x, y float64
			fmt.Sscan(xy, &x, &y)
			step("click", chromedp.MouseClickXY(x, y))
		}
		waitFor("play", fmt.Sprintf(`document.querySelectorAll("#moves .ply").length === %d || document.getElementById("play-error").textContent !== ""`, 2*k))
		if e := eval("error", `document.getElementById("play-error").textContent`); e != "" {
			t.Fatalf("move %d (%s): %s", k, m.URL, e)
		}
	}
	shot("play.png")
}

func playStateOf(t *testing.T, url string) playState {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st playState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}
