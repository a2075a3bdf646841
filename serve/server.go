package serve

import (
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Options configure a Server.
type Options struct {
	// Paths are the served paths, as the operator gave them: run
	// directories, games files, record files, directories holding them.
	Paths []string
	// Token, when set, must come with every request: as ?token=, which
	// also sets a cookie for the pages that follow, or as a bearer
	// Authorization header.
	Token string
	// MaxSessions bounds the play sessions held in memory at once
	// (DefaultMaxSessions when 0).
	MaxSessions int
	// Version is palace's version, shown in each page's footer.
	Version string
}

// DefaultMaxSessions is the play sessions a server holds at once unless
// Options say otherwise.
const DefaultMaxSessions = 16

// maxBody bounds a request's body: the largest is a play request's move.
const maxBody = 64 << 10

// Server is palace serve's web app over the served paths. It is safe for
// concurrent use; it never writes under the paths.
type Server struct {
	opt      Options
	roots    []root
	pages    *template.Template
	mux      *http.ServeMux
	trees    treeCache
	sessions playSessions
}

//go:embed assets
var assets embed.FS

// New checks the paths (each must exist) and parses the embedded pages.
func New(opt Options) (*Server, error) {
	if len(opt.Paths) == 0 {
		return nil, errors.New("serve: no path to serve")
	}
	if opt.MaxSessions == 0 {
		opt.MaxSessions = DefaultMaxSessions
	}
	if opt.MaxSessions < 0 {
		return nil, fmt.Errorf("serve: max sessions %d: want 1 or more", opt.MaxSessions)
	}
	s := &Server{opt: opt}
	for _, p := range opt.Paths {
		r, err := newRoot(p)
		if err != nil {
			return nil, err
		}
		s.roots = append(s.roots, r)
	}
	pages, err := template.New("").Funcs(templateFuncs).ParseFS(assets, "assets/*.html")
	if err != nil {
		return nil, fmt.Errorf("serve: pages: %w", err)
	}
	s.pages = pages
	s.mux = http.NewServeMux()
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	static, _ := fs.Sub(assets, "assets/static")
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /{$}", s.handleIndex)
	s.mux.HandleFunc("GET /browse/{root}/{path...}", s.handleBrowse)
	s.mux.HandleFunc("GET /run/{root}/{path...}", s.handleRun)
	s.mux.HandleFunc("GET /api/run/{root}/{path...}", s.handleRunJSON)
	s.mux.HandleFunc("GET /games/{root}/{path...}", s.handleGames)
	s.mux.HandleFunc("GET /game/{root}/{path...}", s.handleGame)
	s.mux.HandleFunc("GET /explorer/{root}/{path...}", s.handleExplorer)
	s.mux.HandleFunc("GET /experiment/{root}/{path...}", s.handleExperiment)
	s.mux.HandleFunc("GET /ladder/{root}/{path...}", s.handleLadder)
	s.mux.HandleFunc("GET /compare", s.handleCompare)
	s.mux.HandleFunc("GET /play", s.handlePlayPage)
	s.mux.HandleFunc("POST /api/play", s.handlePlayStart)
	s.mux.HandleFunc("GET /api/play/{id}", s.handlePlayState)
	s.mux.HandleFunc("POST /api/play/{id}/move", s.handlePlayMove)
	s.mux.HandleFunc("GET /api/play/{id}/save/{format}", s.handlePlaySave)
}

// Handler is the app, behind its guards: the token, then the URL's
// shape, then the body's size.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
		if !s.authorized(w, r) {
			http.Error(w, "palace serve: this server wants its token (?token=...)", http.StatusUnauthorized)
			return
		}
		if !cleanURL(r) {
			http.Error(w, "palace serve: "+errOutside.Error(), http.StatusNotFound)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		s.mux.ServeHTTP(w, r)
	})
}

const tokenCookie = "palace_token"

// authorized checks the token, when there is one. A right ?token= sets a
// cookie, so that links need not carry it.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opt.Token == "" {
		return true
	}
	want := []byte(s.opt.Token)
	same := func(got string) bool { return subtle.ConstantTimeCompare([]byte(got), want) == 1 }
	if q := r.URL.Query().Get("token"); q != "" && same(q) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.opt.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && same(c.Value) {
		return true
	}
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && same(auth) {
		return true
	}
	return false
}

// cleanURL refuses the paths a mux would clean or a reader would take
// as another path: "." and ".." elements, empty elements, encoded
// slashes and backslashes, NUL.
func cleanURL(r *http.Request) bool {
	raw := strings.ToLower(r.URL.EscapedPath())
	if strings.Contains(raw, "%2f") || strings.Contains(raw, "%5c") || strings.Contains(raw, "%00") {
		return false
	}
	p := r.URL.Path
	if p == "/" {
		return true
	}
	if strings.HasSuffix(p, "/") {
		p = strings.TrimSuffix(p, "/") // /browse/0/ is root 0 itself
	}
	return cleanRel(strings.TrimPrefix(p, "/"))
}

// target is what a URL's {root}/{path...} names.
type target struct {
	root  int
	rel   string
	path  string // absolute
	isDir bool
}

// target resolves the request's {root} and {path...}, or errOutside.
func (s *Server) target(r *http.Request) (target, error) {
	i, err := strconv.Atoi(r.PathValue("root"))
	if err != nil || i < 0 || i >= len(s.roots) || strconv.Itoa(i) != r.PathValue("root") {
		return target{}, errOutside
	}
	rel := strings.TrimSuffix(r.PathValue("path"), "/")
	p, err := s.roots[i].resolve(rel)
	if err != nil {
		return target{}, err
	}
	t := target{root: i, rel: rel, path: p}
	if rel == "" {
		t.isDir = s.roots[i].dir
	} else {
		info, err := os.Lstat(p)
		if err != nil {
			return target{}, err
		}
		t.isDir = info.IsDir()
	}
	return t, nil
}

// name is how pages show a target: the path as given, then the part below it.
func (s *Server) name(t target) string {
	if t.rel == "" {
		return s.roots[t.root].given
	}
	return strings.TrimSuffix(s.roots[t.root].given, "/") + "/" + t.rel
}

// link is the URL of a page over a target (kind: browse, run, games, ...).
func link(kind string, root int, rel string) string {
	u := "/" + kind + "/" + strconv.Itoa(root) + "/"
	for i, elem := range strings.Split(rel, "/") {
		if i > 0 {
			u += "/"
		}
		u += url.PathEscape(elem)
	}
	return u
}

// page is what every template gets.
type page struct {
	Title   string
	Version string
	Crumbs  []crumb
	Data    any
}

type crumb struct{ Name, URL string }

// render writes a page; a template's failure is the server's fault, said
// plainly.
func (s *Server) render(w http.ResponseWriter, status int, name string, p page) {
	p.Version = s.opt.Version
	var b strings.Builder
	if err := s.pages.ExecuteTemplate(&b, name, p); err != nil {
		http.Error(w, "palace serve: page "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// fail answers an error as a page: errOutside as 404, anything else (a
// damaged or half-written file) as a page naming it, never a crash.
func (s *Server) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, errOutside) {
		http.Error(w, "palace serve: "+errOutside.Error(), http.StatusNotFound)
		return
	}
	s.render(w, http.StatusUnprocessableEntity, "error.html", page{Title: "Cannot show this", Data: err.Error()})
}

// Timeouts the command's http.Server takes: a slow client cannot hold a
// connection open, and the largest page (an opening tree over a large
// collection) has time to build.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	WriteTimeout      = 5 * time.Minute
	IdleTimeout       = 2 * time.Minute
	MaxHeaderBytes    = 64 << 10
)

// IsLoopback reports whether addr (host:port) listens on loopback only,
// the one address palace serve takes without a token.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
