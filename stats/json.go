package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Number is a float64 that JSON can hold whatever its value: a perfect
// score's Elo is +Inf, which encoding/json refuses, and a run's metrics
// must not fail to save on it. Non-finite values are written as the
// strings "+Inf", "-Inf" and "NaN"; finite ones as plain numbers.
type Number float64

func (f Number) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

func (f *Number) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(b, []byte(`"`)) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "+Inf":
			*f = Number(math.Inf(1))
		case "-Inf":
			*f = Number(math.Inf(-1))
		case "NaN":
			*f = Number(math.NaN())
		default:
			return fmt.Errorf("stats: %q is not a number, +Inf, -Inf or NaN", s)
		}
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = Number(x)
	return nil
}

// eloJSON is EloEstimate's JSON form: the same field names as the plain
// struct's, so that files written before infinities were handled read.
type eloJSON struct {
	Elo Number
	CI  struct{ Lo, Hi Number }
	LOS Number
}

// MarshalJSON writes the estimate, infinite bounds included (see Number).
func (e EloEstimate) MarshalJSON() ([]byte, error) {
	var j eloJSON
	j.Elo, j.CI.Lo, j.CI.Hi, j.LOS = Number(e.Elo), Number(e.CI.Lo), Number(e.CI.Hi), Number(e.LOS)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *EloEstimate) UnmarshalJSON(b []byte) error {
	var j eloJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("stats: Elo estimate: %w", err)
	}
	*e = EloEstimate{Elo: float64(j.Elo), CI: Interval{Lo: float64(j.CI.Lo), Hi: float64(j.CI.Hi)}, LOS: float64(j.LOS)}
	return nil
}
