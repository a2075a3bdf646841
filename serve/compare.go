package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/palace-chess/palace/rundir"
)

// maxRunsListed bounds the runs the compare page offers.
const maxRunsListed = 100

// runRef is a run directory under a served path.
type runRef struct {
	Name    string // as the operator would write it
	API     string // its dashboard's data
	URL     string // its dashboard
	Ref     string // root/rel, the compare page's run=
	Checked bool
}

// runs are the run directories among the served paths and the
// directories right below them (palace serve runs/).
func (s *Server) runs() []runRef {
	var out []runRef
	add := func(i int, rel string) {
		name := s.roots[i].given
		if rel != "" {
			name = strings.TrimSuffix(name, "/") + "/" + rel
		}
		out = append(out, runRef{Name: name, API: link("api/run", i, rel), URL: link("run", i, rel), Ref: strconv.Itoa(i) + "/" + rel})
	}
	for i, rt := range s.roots {
		if !rt.dir || len(out) >= maxRunsListed {
			continue
		}
		if rundir.Kind(rt.abs) == rundir.KindRun {
			add(i, "")
			continue
		}
		des, err := os.ReadDir(rt.abs)
		if err != nil {
			continue
		}
		sort.Slice(des, func(a, b int) bool { return des[a].Name() < des[b].Name() })
		for _, de := range des {
			if de.IsDir() && de.Type()&os.ModeSymlink == 0 && len(out) < maxRunsListed &&
				rundir.Kind(filepath.Join(rt.abs, de.Name())) == rundir.KindRun {
				add(i, de.Name())
			}
		}
	}
	return out
}

// handleCompare overlays several runs' ratings and gates, as palace
// report A B does: the page's script fetches each run's data.
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	runs := s.runs()
	chosen := map[string]bool{}
	for _, ref := range r.URL.Query()["run"] {
		chosen[ref] = true
	}
	for i := range runs {
		runs[i].Checked = chosen[runs[i].Ref] || len(chosen) == 0
	}
	s.render(w, http.StatusOK, "compare.html", page{Title: "Compare runs", Crumbs: []crumb{{"palace serve", "/"}, {"compare", "/compare"}}, Data: runs})
}
