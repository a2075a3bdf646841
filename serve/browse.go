package serve

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/arena"
	"github.com/palace-chess/palace/experiment"
	"github.com/palace-chess/palace/gamerec"
	"github.com/palace-chess/palace/internal/jsonlrec"
	"github.com/palace-chess/palace/ladder"
	"github.com/palace-chess/palace/rundir"
)

// What a served file or directory is, as pages name it.
const (
	kindRun        = "run"
	kindSelfplay   = "self-play"
	kindLadder     = "ladder"
	kindGames      = "games"
	kindMatch      = "match"
	kindExperiment = "experiment"
	kindNetwork    = "network"
	kindDir        = "directory"
)

// entry is one line of a listing.
type entry struct {
	Name  string
	Kind  string // one of the kinds above, "" for a file palace does not read
	Links []crumb
}

// classify says what the file or directory at p is; dir tells which.
func classify(p string, dir bool) string {
	if dir {
		switch rundir.Kind(p) {
		case rundir.KindRun:
			return kindRun
		case rundir.KindSelfplay:
			return kindSelfplay
		}
		if _, err := os.Stat(filepath.Join(p, ladder.ResultFile)); err == nil {
			return kindLadder
		}
		return kindDir
	}
	switch {
	case strings.HasSuffix(p, ".palnet"):
		return kindNetwork
	case !strings.HasSuffix(p, ".jsonl"):
		return ""
	}
	format, err := jsonlrec.FileFormat(p)
	if err != nil {
		return ""
	}
	switch format {
	case gamerec.Format:
		return kindGames
	case arena.RecordsFormat:
		return kindMatch
	case experiment.RecordsFormat:
		return kindExperiment
	}
	if rundir.IsGamesFile(p) {
		return kindGames // an older games format Collect still reads
	}
	return ""
}

// links are the pages over a thing of kind k at root/rel.
func links(k string, root int, rel string) []crumb {
	switch k {
	case kindRun:
		return []crumb{{"dashboard", link("run", root, rel)}, {"games", link("games", root, rel)}, {"openings", link("explorer", root, rel)}, {"files", link("browse", root, rel)}}
	case kindSelfplay, kindGames, kindMatch:
		return []crumb{{"games", link("games", root, rel)}, {"openings", link("explorer", root, rel)}}
	case kindLadder:
		return []crumb{{"rating", link("ladder", root, rel)}, {"games", link("games", root, rel)}, {"files", link("browse", root, rel)}}
	case kindExperiment:
		return []crumb{{"experiment", link("experiment", root, rel)}, {"games", link("games", root, rel)}}
	case kindNetwork:
		return []crumb{{"play it", "/play?root=" + strconv.Itoa(root) + "&path=" + url.QueryEscape(rel)}}
	case kindDir:
		return []crumb{{"files", link("browse", root, rel)}, {"games", link("games", root, rel)}, {"openings", link("explorer", root, rel)}}
	}
	return nil
}

func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	var es []entry
	for i, rt := range s.roots {
		k := classify(rt.abs, rt.dir)
		es = append(es, entry{Name: rt.given, Kind: k, Links: links(k, i, "")})
	}
	s.render(w, http.StatusOK, "index.html", page{Title: "palace serve", Data: es})
}

// maxListing bounds a directory's listing; the rest is counted.
const maxListing = 2000

type listing struct {
	Name    string
	Kind    string
	Links   []crumb
	Entries []entry
	More    int
}

func (s *Server) handleBrowse(w http.ResponseWriter, r *http.Request) {
	t, err := s.target(r)
	if err != nil {
		s.fail(w, err)
		return
	}
	if !t.isDir {
		k := classify(t.path, false)
		if l := links(k, t.root, t.rel); len(l) > 0 {
			http.Redirect(w, r, l[0].URL, http.StatusFound)
			return
		}
		s.fail(w, errOutside) // palace serves no raw files
		return
	}
	des, err := os.ReadDir(t.path)
	if err != nil {
		s.fail(w, err)
		return
	}
	sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
	k := classify(t.path, true)
	l := listing{Name: s.name(t), Kind: k, Links: links(k, t.root, t.rel)}
	for _, de := range des {
		if de.Type()&os.ModeSymlink != 0 || strings.HasPrefix(de.Name(), ".") {
			continue // never followed; dot files are no palace output
		}
		if len(l.Entries) == maxListing {
			l.More++
			continue
		}
		rel := de.Name()
		if t.rel != "" {
			rel = t.rel + "/" + de.Name()
		}
		ek := classify(filepath.Join(t.path, de.Name()), de.IsDir())
		e := entry{Name: de.Name(), Kind: ek, Links: links(ek, t.root, rel)}
		if de.IsDir() {
			e.Name += "/"
		}
		l.Entries = append(l.Entries, e)
	}
	s.render(w, http.StatusOK, "browse.html", page{Title: l.Name, Crumbs: s.crumbs(t), Data: l})
}

// crumbs link each directory from the root down to t.
func (s *Server) crumbs(t target) []crumb {
	out := []crumb{{"palace serve", "/"}, {s.roots[t.root].given, link("browse", t.root, "")}}
	if t.rel == "" {
		return out
	}
	elems := strings.Split(t.rel, "/")
	for i := range elems {
		out = append(out, crumb{elems[i], link("browse", t.root, strings.Join(elems[:i+1], "/"))})
	}
	return out
}
