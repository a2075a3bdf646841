module github.com/palace-chess/palace

go 1.26

require gopkg.in/yaml.v3 v3.0.1

require github.com/ebitengine/purego v0.11.3
