package main
import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
