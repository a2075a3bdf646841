// Package serve is palace serve: a local web app over what palace wrote,
// from the one binary (net/http, html/template, and the pages, script and
// style embedded from assets/).
//
// The pages: a run's dashboard (run.go; its data at /api/run/, which the
// page polls while the run goes on; several runs overlaid, compare.go),
// any game of a games or record file on a board (games.go; a self-play
// game's search from its shard), the opening explorer over the openings
// package's tree (explorer.go; kept built while its files do not change),
// an experiment's two rule sets (experiment.go), a ladder's rating
// (ladder.go), and play against a network with palace's rules on the
// server (play.go).
//
// It reads only: a URL names a file as a served path's index and a path
// below it, resolved element by element with no symbolic link followed,
// and a URL with a parent reference or an encoded slash is refused
// (paths.go, server.go). A served directory that holds a link is not
// walked. A damaged or half-written file gives a page naming it.
package serve
