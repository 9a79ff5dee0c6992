// Word error rate: (substitutions + deletions + insertions) / reference words, by Levenshtein
// distance over words after the same normalisation of both sides (lower case, letters, digits and
// apostrophes only), summed over a set of sentences (the corpus-level WER, not a mean of ratios).

export function words(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

export function editDistance(reference, hypothesis) {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const current = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const substitution = previous[j - 1] + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, previous[j] + 1, current[j - 1] + 1));
    }
    previous = current;
  }
  return previous[hypothesis.length];
}

/** Corpus WER of `hypotheses` against `references` (same order). */
export function wordErrorRate(references, hypotheses) {
  let errors = 0;
  let total = 0;
  references.forEach((reference, i) => {
    const ref = words(reference);
    errors += editDistance(ref, words(hypotheses[i] ?? ''));
    total += ref.length;
  });
  return total === 0 ? 0 : errors / total;
}
