// Package runlock keeps a second process out of a directory a run is
// writing: two self-play runs would replay each other's games, two loops
// would both train and promote.
package runlock

import "errors"

// ErrLocked is Lock's error when another holder has the lock.
var ErrLocked = errors.New("runlock: held by another run")
