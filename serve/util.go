package serve

import (
	"fmt"
	"html/template"
)

var templateFuncs = template.FuncMap{
	// add sums numbers of one kind (the page's SVG coordinates).
	"add": func(a, b any) (any, error) {
		switch x := a.(type) {
		case int:
			if y, ok := b.(int); ok {
				return x + y, nil
			}
		case float64:
			if y, ok := b.(float64); ok {
				return x + y, nil
			}
		}
		return nil, fmt.Errorf("add: %T and %T", a, b)
	},
}
