"""Gradescope's submission_metadata.yml, read as data and nothing more.

Gradescope writes it with Ruby: one entry per submission folder (`submission_ID:`),
each naming its submitters (`:submitters:` a list of `:name:`, `:sid:`, `:email:`),
with Ruby's tags on some values (`!ruby/object:BigDecimal 18:0.0`). A forged export can
hold anything YAML can: an alias that expands a billion times ("billion laughs"),
100,000 levels of nesting (PyYAML's composer recurses), keys that are numbers or
lists, a submitters field that is a number. The events are checked before anything is
built (no anchor, no alias, no nesting deeper than DEPTH_MAX), then the data against
the shape Gradescope writes; anything else is refused with one line naming the file,
the entry and the field.
"""
from . import shown

DEPTH_MAX = 16  # Gradescope's own files nest 6 deep at most
META_MAX = 64 << 20  # bytes of a submission_metadata.yml


class MetadataError(Exception):
    """The file is not metadata Gradescope wrote: one line saying where and why."""


def _yaml(where):
    try:
        import yaml
    except ImportError:
        raise MetadataError("%s: reading a Gradescope export needs PyYAML: sudo apt-get "
                            "install python3-yaml" % where)
    return yaml


def _loader(yaml):
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Loader(base):  # Ruby's tags (!ruby/object:...) read as plain values
        pass

    def plain(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)
    Loader.add_multi_constructor("!", plain)
    return Loader


def _check_events(yaml, text, loader, where):
    """Refuse anchors, aliases and deep nesting, reading events (nothing is built)."""
    depth = 0
    for ev in yaml.parse(text, Loader=loader):
        if isinstance(ev, yaml.AliasEvent) or getattr(ev, "anchor", None) is not None:
            sign = "*" if isinstance(ev, yaml.AliasEvent) else "&"
            raise MetadataError("%s, line %d: the %s %s%s is refused: Gradescope's exports have "
                                "none, and an alias can expand without bound" % (
                                    where, ev.start_mark.line + 1,
                                    "alias" if sign == "*" else "anchor", sign,
                                    shown.escape(ev.anchor, 40)))
        if isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > DEPTH_MAX:
                raise MetadataError("%s, line %d: nested more than %d levels deep: not "
                                    "metadata Gradescope wrote" % (
                                        where, ev.start_mark.line + 1, DEPTH_MAX))
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


def _what(v):
    for t, name in ((bool, "a true/false value"), (int, "a number"), (float, "a number"),
                    (str, "text"), (list, "a list"), (dict, "a mapping"), (type(None), "empty")):
        if isinstance(v, t):
            return name
    return "a %s" % type(v).__name__


def _field(d, name):
    """A field of an entry, written by Ruby as :name: (or plain name:)."""
    return d.get(":" + name, d.get(name))


def _text(v, where, field):
    """A submitter's name, id or email: text or a whole number, else refused."""
    if v is None:
        return ""
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        raise MetadataError("%s: %s is %s, not text" % (where, field, _what(v)))
    return str(v)


def people_of(entry, folder, where):
    """[{name, id, email}] of one entry (its :submitters:), checked."""
    if entry is None:
        return [{"name": folder, "id": "", "email": ""}]
    subs = _field(entry, "submitters")
    if subs is None:
        subs = []
    if not isinstance(subs, list):
        raise MetadataError("%s: :submitters: is %s, not a list of submitters" % (where, _what(subs)))
    people = []
    for i, s in enumerate(subs, 1):
        at = "%s, submitter %d" % (where, i)
        if not isinstance(s, dict):
            raise MetadataError("%s: is %s, not a mapping of :name:, :sid:, :email:" % (at, _what(s)))
        name, sid, email = (_text(_field(s, k), at, ":%s:" % k) for k in ("name", "sid", "email"))
        people.append({"name": name or email or sid or folder, "id": sid or email, "email": email})
    return people or [{"name": folder, "id": "", "email": ""}]


def load(data, where):
    """{folder name: [people]} of the bytes of a submission_metadata.yml (where: its path
    or archive member, for messages)."""
    where = shown.escape(where)
    yaml = _yaml(where)
    text = data.decode("utf-8", "replace")
    loader = _loader(yaml)
    try:
        _check_events(yaml, text, loader, where)
        meta = yaml.load(text, Loader=loader)
    except yaml.YAMLError as e:
        raise MetadataError("%s: not YAML Gradescope wrote (%s)" % (
            where, shown.escape(str(e).splitlines()[0], 200)))
    except RecursionError:  # not reached past DEPTH_MAX; a guard all the same
        raise MetadataError("%s: nested too deep to read" % where)
    if not isinstance(meta, dict):
        raise MetadataError("%s: expected one entry per submission folder (submission_ID:), "
                            "found %s" % (where, _what(meta)))
    out = {}
    for key, entry in meta.items():
        if not isinstance(key, str) or isinstance(key, bool):
            raise MetadataError("%s: the key %s is %s, not a submission folder's name (Gradescope "
                                "writes submission_ID:)" % (where, shown.escape(repr(key), 60), _what(key)))
        at = "%s, entry %s" % (where, shown.escape(key, 100))
        if entry is not None and not isinstance(entry, dict):
            raise MetadataError("%s: is %s, not a mapping with :submitters:" % (at, _what(entry)))
        out[key] = people_of(entry, key, at)
    return out
