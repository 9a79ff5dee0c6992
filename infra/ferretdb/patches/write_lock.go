// Added to FerretDB's handler package by scripts/stack.mjs when it builds FerretDB for the local stack.
//
// FerretDB 1.24 runs findAndModify, update and delete as "query, then write" without a transaction,
// so two concurrent conditional updates of one document can both match: MongoDB's single-document
// atomicity does not hold (measured: 50 concurrent `$inc` with `n < 10` moved n to 9 while 38 of
// them reported success). The platform relies on that atomicity, as every MongoDB server provides it,
// so the local build serialises the write commands of its single FerretDB process. It costs write
// concurrency, which a development and test stack can spare.

package handler

import "sync"

var platformWriteLock sync.Mutex
