#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into fuzz/seeds/<target>/ (valid inputs written by
# agghoo itself: models of several families, splits files, CSV and LibSVM snippets). The
# committed, minimised corpora in fuzz/corpus/ started from these.
# Usage: bash fuzz/make-seeds.sh [path/to/agghoo]   (default: target/release/agghoo)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/agghoo}
out=fuzz/seeds
rm -rf "$out" && mkdir -p "$out"/{csv,csv_na,libsvm,splits,model}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CSV: the first byte picks the reader's options (see fuzz_targets/csv.rs).
head -n 12 data/breast-cancer-wisconsin.csv > "$tmp/bc.csv"
{ printf '\x20'; sed 's/,class$/,y/' "$tmp/bc.csv"; } > "$out/csv/bundled-head"
printf '\x00a,b,y\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n' > "$out/csv/small-classes"
printf '\x12a,b,y\n1,2,0.5\n3,,1.5\n,6,2\n7,8,\n' > "$out/csv/missing-median"
printf '\x4aa;b;y\n1e300;2;1\n-3;4e-310;0\n5;6;1\n' > "$out/csv/semicolon-extremes"
printf '\x80b,a,id,y\n1,2,r1,x\n3,4,r2,0\n"5",6,r3,1\n' > "$out/csv/feature-columns"
printf '\x01a,b\n1,2\n3,4\n' > "$out/csv/no-target"

# CSV with categorical columns and missing-value tokens: the first byte picks the options (see
# fuzz_targets/csv_na.rs).
printf '\x02a,b,y\n1,NULL,0\n2,3,1\n-,4,0\n5,inf,1\n' > "$out/csv_na/pandas-tokens"
printf '\x05a,b,y\ninf,x,0\nA,1,1\nB,-,0\n.,n/a,1\n' > "$out/csv_na/inf-first"
printf '\x8ba,b,y\n1,,0\nnan,None,1\n?,2,0\n3,Paris,1\n' > "$out/csv_na/declared-replaced"
printf '\x0ea,b,y\n1,NULL,0\nParis,inf,1\n2,-inf,0\n' > "$out/csv_na/custom-tokens"

# LibSVM: the first byte picks the task hint and a declared feature count.
printf '\x00+1 1:0.5 3:2\n-1 2:1\n+1 1:1 2:2 3:3 # comment\n' > "$out/libsvm/binary"
printf '\x02 0.25 1:1e-3 4:7\n1.5 2:-2\n-3 1:1 2:1 3:1 4:1\n' > "$out/libsvm/regression"
printf '\x89 2 1:1\n0 3:1\n1 2:1 5:1\n2 4:0\n' > "$out/libsvm/multiclass-declared"

# Splits files and model files written by agghoo.
"$bin" splits --data gen:knn --n 30 --plan vfold --seed 1 --out "$out/splits/vfold.json"
"$bin" splits --data gen:knn --n 20 --plan mc --tau 0.7 --repeats 3 --seed 2 --out "$out/splits/montecarlo.json"
save() {
    local name=$1
    shift
    "$bin" select "$@" --out "$out/model/$name.json" > /dev/null
}
save knn-majhoo --data gen:knn --n 30 --family knn --grid 1:7:2 --method majhoo --plan mc --repeats 3
save knn-standardized --data gen:knn --n 24 --family knn --grid 1:5:2 --standardize --method cv --plan vfold
save ridge-agghoo --data gen:svr --n 30 --family ridge --method agghoo --plan mc --repeats 3
save kernel-ridge --data gen:svr --n 20 --family kernel-ridge --param kernel=rbf --grid log:0.01:1:3 --method holdout
save lasso-cv --data gen:svr --n 30 --family lasso --method cv --plan vfold
save svr-agghoo --data gen:svr --n 24 --family svr --grid log:0.001:0.1:3 --method agghoo --plan mc --repeats 2
save svc-majhoo --data gen:knn --n 24 --family svc --grid log:0.001:0.1:3 --method majhoo --plan mc --repeats 2
save cart-majhoo --data gen:knn --n 40 --family cart --method majhoo --plan mc --repeats 2
save forest-cv --data gen:knn --n 30 --family forest --param trees=3 --grid 1,2 --method cv --plan vfold
save logistic-acv --data gen:knn --n 30 --family logistic --grid log:0.001:0.1:3 --method acv --plan mc --repeats 2
ls -l "$out"/*
