# shellcheck shell=bash
# Helpers of the packaging scripts. Source after qemu/common.sh.

# The version, from its single source.
nova_version() {
	local v
	v=$(cat "$NOVA_ROOT/src/VERSION")
	[[ $v =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "src/VERSION is not a version: '$v'"
	echo "$v"
}

# copy_tree DEST: copy the source tree (what git tracks plus new files that are
# not ignored, so no build products, results or caches) to DEST.
# With NOVA_SRC_REF=<git ref> (e.g. HEAD), src/ is taken from that commit
# instead of the working tree: packages of the last commit's module while
# src/ is being edited; the packaging files always come from the working tree.
copy_tree() {
	local dest=$1
	rm -rf "$dest"
	mkdir -p "$dest"
	if git -C "$NOVA_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$NOVA_ROOT" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
			done | cpio -0 -pdm --quiet "$dest")
	else
		tar -C "$NOVA_ROOT" --exclude=./build --exclude=./.git \
			--exclude='*.o' --exclude='*.ko' --exclude='*.mod*' --exclude='.*.cmd' \
			-cf - . | tar -C "$dest" -xf -
	fi
	if [ -n "${NOVA_SRC_REF:-}" ]; then
		log "src/ from $NOVA_SRC_REF ($(git -C "$NOVA_ROOT" rev-parse --short "$NOVA_SRC_REF" 2>/dev/null || echo '?'))"
		rm -rf "$dest/src"
		git -C "$NOVA_ROOT" archive --format=tar "$NOVA_SRC_REF" src | tar -C "$dest" -xf - ||
			die "cannot take src/ from git ref $NOVA_SRC_REF"
	fi
	[ -f "$dest/src/VERSION" ] || die "copy of the tree in $dest has no src/VERSION"
}

# lintian_summary FILE: "N errors, N warnings, N info, N pedantic, N overridden"
lintian_summary() {
	local f=$1 e w i p o
	e=$(grep -c '^E: ' "$f" || true)
	w=$(grep -c '^W: ' "$f" || true)
	i=$(grep -c '^I: ' "$f" || true)
	p=$(grep -c '^P: ' "$f" || true)
	o=$(grep -c '^O: ' "$f" || true)
	echo "$e errors, $w warnings, $i info, $p pedantic, $o overridden"
}
