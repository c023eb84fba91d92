# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False
"""Compiled versions of the per-page passes of :mod:`scrapy_cetd.page` (``dom``, ``density``,
``flags``, ``output``, ``page_types``) and of the extractors ``cetd``, ``furniture`` and
``cetd_plus``.

Each function has a pure-Python reference with the same parameters, registered beside it with
:func:`scrapy_cetd.page.accel.twin`; ``_speedups.pyi`` declares them all. Each returns exactly
what its reference returns (the same lists, the same floats bit for bit, the same strings), or
``None`` when it meets something it does not handle, and :mod:`scrapy_cetd.page.accel` then runs
the reference. The speed comes from reading the libxml2 nodes behind lxml's element proxies
directly, instead of going through one proxy per node, and from rendering the output by copying
only the kept nodes instead of the whole body.

Two things tie this module to the lxml it was compiled against, so :mod:`scrapy_cetd.page.accel`
uses it only when :data:`LXML_VERSION` equals ``lxml.etree.LXML_VERSION`` and :data:`READY` is true:

* the layout of lxml's ``_Element`` and ``_Document`` structs (read to reach the libxml2 nodes);
* the libxml2 functions used to copy nodes for the output (``xmlCopyDoc``, ``xmlDocCopyNode``,
  ...). They are looked up at import time in lxml's own ``etree`` module, which exports the
  libxml2 it is linked with, so the copies are made by the very library that made the tree and
  that serialises the copy. Where that module exports no such symbols, :data:`READY` is false.

Nothing here is global mutable state: every call works on its own buffers, and the function
pointers are set once, at import. The GIL is held throughout, and no function recurses over the
tree: every walk keeps its own stack, so a 100,000-deep page costs heap, not C stack.

Every loop over the nodes or elements of a page checks the time budget of the running extraction
every 4,096 iterations (:func:`tick`), as the Python reference does, and lets its
``LimitExceededError`` propagate after freeing its buffers. Only a libxml2 copy of one kept
subtree, and the scans of one text, run without a check; both are linear in what they read.
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.ref cimport PyObject
from cpython.unicode cimport (
    Py_UNICODE_ISDIGIT,
    Py_UNICODE_ISSPACE,
    Py_UCS1,
    PyUnicode_1BYTE_DATA,
    PyUnicode_1BYTE_KIND,
    PyUnicode_4BYTE_KIND,
    PyUnicode_AsUTF8AndSize,
    PyUnicode_DATA,
    PyUnicode_DecodeUTF8,
    PyUnicode_FromKindAndData,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
    PyUnicode_READ,
    PyUnicode_WRITE,
)
from libc.math cimport log
from libc.string cimport memchr, memcmp, memcpy, strcmp, strpbrk
from lxml.includes.etreepublic cimport (
    LXML_VERSION_STRING,
    _Document,
    _Element,
    _ElementTree,
    adoptExternalDocument,
    attributeValue,
    elementFactory,
    import_lxml__etree,
)
from lxml.includes.tree cimport (
    XML_CDATA_SECTION_NODE,
    XML_COMMENT_NODE,
    XML_DOCUMENT_NODE,
    XML_ELEMENT_NODE,
    XML_ENTITY_REF_NODE,
    XML_HTML_DOCUMENT_NODE,
    XML_PI_NODE,
    XML_TEXT_NODE,
    XML_XINCLUDE_END,
    XML_XINCLUDE_START,
    const_xmlChar,
    xmlAttr,
    xmlChar,
    xmlDoc,
    xmlNode,
)

import collections.abc
import ctypes
import math
import operator
import re

import lxml.html
from lxml import etree

from scrapy_cetd.guard import _scan as guard_scan
from scrapy_cetd.limits import check_deadline


cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)


cdef inline list untracked(list items):
    """``items``, no longer followed by the cyclic garbage collector.

    Only for the per-element lists that hold ints or strs. Such a list cannot be part of a
    reference cycle (CPython untracks tuples and dicts of atomic values for the same reason),
    and a page makes thousands of them: tracked, every collection while the page is worked on
    scans them and promotes them to older generations, which then cost full collections.
    """
    PyObject_GC_UnTrack(<void*>items)
    return items

cdef extern from "string.h":
    size_t _strlen "strlen"(const char* s) noexcept


cdef inline int tick(Py_ssize_t i, str step) except -1:
    """The time budget of the running extraction, checked (:func:`scrapy_cetd.limits.check_deadline`,
    which raises ``LimitExceededError``) at ``i`` = 4,095, 8,191, ...: every long loop here
    calls this once per node, for a cost of one test and, rarely, one Python call. A loop of
    fewer iterations adds no check to those its caller makes between steps."""
    if (i & 4095) == 4095:
        check_deadline(step)
    return 0

import_lxml__etree()

LXML_VERSION_COMPILED = (<bytes>LXML_VERSION_STRING).decode("ascii")
"""The lxml version whose headers this module was compiled with, as a string."""


def _version_tuple(text):
    """``"6.1.3"`` as lxml's ``(6, 1, 3, 0)``; ``None`` for a pre-release, which never matches."""
    parts = (text.replace("-", ".").split(".") + ["0"] * 4)[:4]
    if not all(part.isdigit() for part in parts):
        return None
    return tuple(int(part) for part in parts)


LXML_VERSION = _version_tuple(LXML_VERSION_COMPILED)
"""The compiled-against lxml version in the form of ``lxml.etree.LXML_VERSION``."""


# --- libxml2 functions, taken from the libxml2 inside lxml.etree --------------------------------

ctypedef xmlDoc* (*CopyDoc)(xmlDoc*, int) noexcept
ctypedef xmlNode* (*DocCopyNode)(xmlNode*, xmlDoc*, int) noexcept
ctypedef xmlNode* (*DocSetRootElement)(xmlDoc*, xmlNode*) noexcept
ctypedef xmlNode* (*NewDocTextLen)(xmlDoc*, const_xmlChar*, int) noexcept
ctypedef void (*FreeDoc)(xmlDoc*) noexcept

cdef CopyDoc xml_copy_doc = NULL
cdef DocCopyNode xml_doc_copy_node = NULL
cdef DocSetRootElement xml_doc_set_root_element = NULL
cdef NewDocTextLen xml_new_doc_text_len = NULL
cdef FreeDoc xml_free_doc = NULL


def _bind_libxml2():
    """Point the function pointers at lxml.etree's libxml2; the reason when that fails."""
    global xml_copy_doc, xml_doc_copy_node, xml_doc_set_root_element
    global xml_new_doc_text_len, xml_free_doc
    try:
        library = ctypes.CDLL(etree.__file__)
        addresses = [
            ctypes.cast(getattr(library, name), ctypes.c_void_p).value
            for name in (
                "xmlCopyDoc", "xmlDocCopyNode", "xmlDocSetRootElement", "xmlNewDocTextLen",
                "xmlFreeDoc",
            )
        ]
    except (OSError, AttributeError) as error:
        return f"libxml2 functions not found in lxml.etree: {error}"
    if not all(addresses):
        return "libxml2 functions not found in lxml.etree"
    cdef size_t address
    address = addresses[0]
    xml_copy_doc = <CopyDoc>address
    address = addresses[1]
    xml_doc_copy_node = <DocCopyNode>address
    address = addresses[2]
    xml_doc_set_root_element = <DocSetRootElement>address
    address = addresses[3]
    xml_new_doc_text_len = <NewDocTextLen>address
    address = addresses[4]
    xml_free_doc = <FreeDoc>address
    return None


UNAVAILABLE_REASON = _bind_libxml2()
"""Why this module cannot be used with the lxml it was imported with (``None`` when it can)."""

READY = UNAVAILABLE_REASON is None


class NotHandledError(Exception):
    """Raised inside this module for a tree it does not handle; its functions return ``None``."""


# --- small growable buffers ---------------------------------------------------------------------

cdef struct Bytes:
    char* data
    Py_ssize_t size
    Py_ssize_t capacity


cdef int bytes_append(Bytes* buffer, const char* data, Py_ssize_t size) except -1:
    cdef Py_ssize_t capacity
    cdef char* grown
    if buffer.size + size > buffer.capacity:
        capacity = max(2 * buffer.capacity, buffer.size + size, 256)
        grown = <char*>PyMem_Realloc(buffer.data, capacity)
        if grown is NULL:
            raise MemoryError()
        buffer.data = grown
        buffer.capacity = capacity
    memcpy(buffer.data + buffer.size, data, size)
    buffer.size += size
    return 0


cdef class _Ints:
    """A growable array of C ints."""

    cdef int* data
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity

    def __cinit__(self, Py_ssize_t capacity=64):
        self.data = <int*>PyMem_Malloc(max(capacity, 1) * sizeof(int))
        if self.data is NULL:
            raise MemoryError()
        self.capacity = max(capacity, 1)
        self.size = 0

    def __dealloc__(self):
        PyMem_Free(self.data)

    cdef int push(self, int value) except -1:
        cdef int* grown
        if self.size == self.capacity:
            grown = <int*>PyMem_Realloc(self.data, 2 * self.capacity * sizeof(int))
            if grown is NULL:
                raise MemoryError()
            self.data = grown
            self.capacity *= 2
        self.data[self.size] = value
        self.size += 1
        return 0


cdef class _Nodes:
    """A growable array of libxml2 node pointers, each with an int."""

    cdef xmlNode** nodes
    cdef int* ints
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity

    def __cinit__(self):
        self.capacity = 64
        self.size = 0
        self.nodes = <xmlNode**>PyMem_Malloc(self.capacity * sizeof(xmlNode*))
        self.ints = <int*>PyMem_Malloc(self.capacity * sizeof(int))
        if self.nodes is NULL or self.ints is NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.nodes)
        PyMem_Free(self.ints)

    cdef int push(self, xmlNode* node, int value) except -1:
        cdef xmlNode** nodes
        cdef int* ints
        if self.size == self.capacity:
            nodes = <xmlNode**>PyMem_Realloc(self.nodes, 2 * self.capacity * sizeof(xmlNode*))
            if nodes is NULL:
                raise MemoryError()
            self.nodes = nodes
            ints = <int*>PyMem_Realloc(self.ints, 2 * self.capacity * sizeof(int))
            if ints is NULL:
                raise MemoryError()
            self.ints = ints
            self.capacity *= 2
        self.nodes[self.size] = node
        self.ints[self.size] = value
        self.size += 1
        return 0


# --- tag names ------------------------------------------------------------------------------------

cdef enum:
    INVISIBLE = 1
    LINK = 2
    INPUT = 4
    DIV = 8
    UNSHOWN_CONTENT = 16
    DIALOG = 32

cdef frozenset INVISIBLE_TAGS = frozenset({"script", "style", "noscript", "template", "title"})
cdef frozenset UNSHOWN_CONTENT_TAGS = frozenset({"iframe", "noembed", "noframes"})
cdef frozenset LINK_TAGS = frozenset({"a", "button", "select"})
cdef frozenset CODE_TAGS = frozenset({"pre", "code", "kbd", "samp", "tt"})
cdef str CODE_LINE_CLASS = "line"
cdef frozenset PREFORMATTED_TAGS = frozenset({"pre", "listing", "xmp", "plaintext", "textarea"})


cdef struct NameSlot:
    const_xmlChar* key
    PyObject* name
    int flags


cdef class _Names:
    """Local names of libxml2 element names, lower-cased as :func:`scrapy_cetd.page.dom.local_tag`
    does, with their flags; keyed by the name pointer (libxml2 interns names per document, so a
    page has a few dozen)."""

    cdef NameSlot* slots
    cdef Py_ssize_t capacity
    cdef Py_ssize_t used
    cdef list owned

    def __cinit__(self):
        self.capacity = 128
        self.used = 0
        self.owned = []
        self.slots = <NameSlot*>PyMem_Malloc(self.capacity * sizeof(NameSlot))
        if self.slots is NULL:
            raise MemoryError()
        for i in range(self.capacity):
            self.slots[i].key = NULL

    def __dealloc__(self):
        PyMem_Free(self.slots)

    cdef NameSlot* find(self, const_xmlChar* key) except NULL:
        cdef size_t mask
        cdef size_t position
        cdef NameSlot* slot
        while True:
            mask = self.capacity - 1
            position = ((<size_t>key) >> 4) & mask
            while True:
                slot = &self.slots[position]
                if slot.key == key:
                    return slot
                if slot.key is NULL:
                    break
                position = (position + 1) & mask
            if 2 * (self.used + 1) <= self.capacity:
                self.add(slot, key)
                return slot
            self.grow()

    cdef int add(self, NameSlot* slot, const_xmlChar* key) except -1:
        name = decode(<const char*>key, _strlen(<const char*>key)).lower()
        self.owned.append(name)
        slot.key = key
        slot.name = <PyObject*>name
        slot.flags = (
            (INVISIBLE if name in INVISIBLE_TAGS else 0)
            | (LINK if name in LINK_TAGS else 0)
            | (INPUT if name == "input" else 0)
            | (DIV if name == "div" else 0)
            | (UNSHOWN_CONTENT if name in UNSHOWN_CONTENT_TAGS else 0)
            | (DIALOG if name == "dialog" else 0)
        )
        self.used += 1
        return 0

    cdef int grow(self) except -1:
        cdef NameSlot* old = self.slots
        cdef Py_ssize_t old_capacity = self.capacity
        cdef size_t mask
        cdef size_t position
        self.slots = <NameSlot*>PyMem_Malloc(2 * old_capacity * sizeof(NameSlot))
        if self.slots is NULL:
            self.slots = old
            raise MemoryError()
        self.capacity = 2 * old_capacity
        mask = self.capacity - 1
        for i in range(self.capacity):
            self.slots[i].key = NULL
        for i in range(old_capacity):
            if old[i].key is not NULL:
                position = ((<size_t>old[i].key) >> 4) & mask
                while self.slots[position].key is not NULL:
                    position = (position + 1) & mask
                self.slots[position] = old[i]
        PyMem_Free(old)
        return 0


# --- the view -------------------------------------------------------------------------------------

cdef inline bint is_text(xmlNode* node) noexcept:
    return node.type == XML_TEXT_NODE or node.type == XML_CDATA_SECTION_NODE


cdef inline bint is_skipped(xmlNode* node) noexcept:
    """Nodes lxml neither yields nor reads as text (XInclude markers)."""
    return node.type == XML_XINCLUDE_START or node.type == XML_XINCLUDE_END


cdef inline bint is_element_like(xmlNode* node) noexcept:
    """What lxml counts as a child: elements, comments, processing instructions, entities."""
    return (
        node.type == XML_ELEMENT_NODE
        or node.type == XML_COMMENT_NODE
        or node.type == XML_PI_NODE
        or node.type == XML_ENTITY_REF_NODE
    )


cdef xmlAttr* find_attribute(xmlNode* node, const char* name) noexcept:
    """The first attribute ``name`` without a namespace, as ``element.get(name)`` finds it."""
    cdef xmlAttr* attribute = node.properties
    while attribute is not NULL:
        if attribute.ns is NULL and strcmp(<const char*>attribute.name, name) == 0:
            return attribute
        attribute = attribute.next
    return NULL


STREAMED_SEGMENT = re.compile(r"S:[0-9a-f]+\Z")  # dom._STREAMED_SEGMENT


cdef bint streamed_segment(xmlNode* node) except -1:
    """:func:`scrapy_cetd.page.dom._streamed_segment` on a ``<div>``'s libxml2 node."""
    cdef xmlAttr* attribute = find_attribute(node, "id")
    return attribute is not NULL and STREAMED_SEGMENT.match(attributeValue(node, attribute)) is not None


cdef bint is_hidden(xmlNode* node, int flags) except -1:
    """:func:`scrapy_cetd.page.dom.is_hidden` on the libxml2 node."""
    cdef xmlAttr* attribute
    if flags & DIALOG and find_attribute(node, "open") is NULL:
        return True
    if node.properties is NULL:
        return False
    if find_attribute(node, "hidden") is not NULL and not (flags & DIV and streamed_segment(node)):
        return True
    if flags & INPUT:
        attribute = find_attribute(node, "type")
        if attribute is not NULL and attributeValue(node, attribute).strip().lower() == "hidden":
            return True
    attribute = find_attribute(node, "style")
    if attribute is NULL:
        return False
    style = attributeValue(node, attribute)
    if not style:
        return False
    compact = "".join(style.split()).lower()
    return "display:none" in compact or "visibility:hidden" in compact


cdef str decode(const char* data, Py_ssize_t size):
    """UTF-8 text of libxml2 as a str; :class:`NotHandledError` for bytes lxml would not decode."""
    if size == 0:
        return ""
    try:
        return PyUnicode_DecodeUTF8(<char*>data, size, NULL)
    except UnicodeDecodeError:
        raise NotHandledError("text that is not UTF-8")


cdef class ElementNodes:
    """The elements of a view, as a read-only sequence: the libxml2 nodes, each made into its
    lxml proxy only when it is read (lxml hands back the live proxy when there is one, so an
    element read twice is the same object while either is held).

    Making and freeing a proxy is most of the cost of building a view (``lxml.html`` looks up
    each element's class in Python), and an extraction reads few of them. The sequence holds
    the root's proxy, which keeps the nodes alive; like the view, it must not outlive a change
    to the tree."""

    cdef readonly _Element root
    cdef _Document doc
    cdef xmlNode** nodes
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity

    def __cinit__(self, _Element root not None):
        self.root = root
        self.doc = root._doc
        self.size = 0
        self.capacity = 64
        self.nodes = <xmlNode**>PyMem_Malloc(self.capacity * sizeof(xmlNode*))
        if self.nodes is NULL:
            raise MemoryError()

    def __dealloc__(self):
        PyMem_Free(self.nodes)

    cdef int push(self, xmlNode* node) except -1:
        cdef xmlNode** grown
        if self.size == self.capacity:
            grown = <xmlNode**>PyMem_Realloc(self.nodes, 2 * self.capacity * sizeof(xmlNode*))
            if grown is NULL:
                raise MemoryError()
            self.nodes = grown
            self.capacity *= 2
        self.nodes[self.size] = node
        self.size += 1
        return 0

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[k] for k in range(*index.indices(self.size))]
        i = operator.index(index)
        if i < 0:
            i += self.size
        if i < 0 or i >= self.size:
            raise IndexError("view index out of range")
        return elementFactory(self.doc, self.nodes[i])

    def __iter__(self):
        for i in range(self.size):
            yield elementFactory(self.doc, self.nodes[i])

    def index(self, element):
        """The position of ``element`` (a proxy of one of the nodes), as ``list.index``."""
        cdef xmlNode* node
        if isinstance(element, _Element) and (<_Element>element)._c_node is not NULL:
            node = (<_Element>element)._c_node
            for i in range(self.size):
                if self.nodes[i] is node:
                    return i
        raise ValueError("element is not in the view")


collections.abc.Sequence.register(ElementNodes)  # as the .pyi declares it


def hidden_elements(root):
    """The elements of :func:`scrapy_cetd.page.dom.hidden_elements` as a list, in document order;
    ``None`` for a root this module does not handle."""
    if not isinstance(root, _Element):
        return None
    cdef _Element element = <_Element>root
    if element._c_node is NULL or element._c_node.type != XML_ELEMENT_NODE:
        return None
    return _hidden_elements(element)


cdef list _hidden_elements(_Element root):
    cdef xmlNode* c_root = root._c_node
    cdef xmlNode* node = c_root
    cdef _Names names = _Names()
    cdef list found = []
    cdef Py_ssize_t visited = 0
    while node is not NULL:
        tick(visited, "finding hidden elements")
        visited += 1
        if (
            node is not c_root
            and node.type == XML_ELEMENT_NODE
            and is_hidden(node, names.find(node.name).flags)
        ):
            found.append(elementFactory(root._doc, node))
        node = next_in_subtree(node, c_root)
    return found


def hidden_text_length(root):
    """:func:`scrapy_cetd.page.dom.hidden_text_length`; ``None`` for a root this module does not
    handle."""
    if not isinstance(root, _Element):
        return None
    cdef xmlNode* c_root = (<_Element>root)._c_node
    if c_root is NULL or c_root.type != XML_ELEMENT_NODE:
        return None
    cdef _Names names = _Names()
    cdef xmlNode* node = c_root
    cdef xmlNode* end
    cdef Py_ssize_t total = 0
    cdef Py_ssize_t visited = 0
    while node is not NULL:
        tick(visited, "measuring hidden text")
        visited += 1
        if (
            node is not c_root
            and node.type == XML_ELEMENT_NODE
            and is_hidden(node, names.find(node.name).flags)
        ):
            end = node
            node = next_in_subtree(node, end)
            while node is not NULL:
                tick(visited, "measuring hidden text")
                visited += 1
                if is_text(node) and node.content is not NULL:
                    total += utf8_length(<const char*>node.content)
                node = next_in_subtree(node, end)
            node = end
            while node is not c_root and node.next is NULL:  # past the hidden subtree
                node = node.parent
            node = NULL if node is c_root else node.next
        else:
            node = next_in_subtree(node, c_root)
    return total


cdef Py_ssize_t utf8_length(const char* text) noexcept:
    """Characters of a NUL-terminated UTF-8 string: its bytes that do not continue one."""
    cdef Py_ssize_t count = 0
    cdef Py_ssize_t i = 0
    while text[i] != 0:
        if (<unsigned char>text[i] & 0xC0) != 0x80:
            count += 1
        i += 1
    return count


cdef inline xmlNode* next_in_subtree(xmlNode* node, xmlNode* root) noexcept:
    """The node after ``node`` in document order within ``root``'s subtree (NULL after the
    last): the first child of an element, else the next sibling of the node or of its closest
    ancestor that has one."""
    if node.type == XML_ELEMENT_NODE and node.children is not NULL:
        return node.children
    while node is not root and node.next is NULL:
        node = node.parent
    return NULL if node is root else node.next


cdef xmlNode* element_node(object element) except NULL:
    """The libxml2 node behind an element proxy; :class:`NotHandledError` for anything else."""
    if not isinstance(element, _Element) or (<_Element>element)._c_node is NULL:
        raise NotHandledError("not an element")
    return (<_Element>element)._c_node


cdef inline bint is_elements(object elements) noexcept:
    """``elements`` is a view's elements: a list of proxies or an :class:`ElementNodes`."""
    return type(elements) is list or type(elements) is ElementNodes


cdef xmlNode* node_at(object elements, Py_ssize_t i) except NULL:
    """The node of the ``i``-th element of ``elements`` (:func:`is_elements`, ``i`` in range)."""
    if type(elements) is ElementNodes:
        return (<ElementNodes>elements).nodes[i]
    return element_node((<list>elements)[i])


def build_view(root, bint remove_hidden):
    """The fields of :func:`scrapy_cetd.page.dom.build_view`'s ``DomView`` (elements, tags, parent,
    children, runs, depth, in_link) for ``root``; ``None`` for a tree this module does not handle.

    One preorder walk over the libxml2 nodes with an explicit stack. Each visible element's child
    list is read once: text nodes go into the current text run, a removed node (comment, PI,
    entity, invisible or hidden element) is skipped so the text around it joins, and each visible
    child element starts a new run and is pushed. The elements come as :class:`ElementNodes`:
    no proxy is made here.
    """
    if not isinstance(root, _Element):
        return None
    try:
        return _build_view(root, remove_hidden)
    except NotHandledError:
        return None


cdef tuple _build_view(_Element root, bint remove_hidden):
    cdef xmlNode* c_root = root._c_node
    if c_root is NULL or c_root.type != XML_ELEMENT_NODE:
        raise NotHandledError("not an element")
    cdef _Document doc = root._doc
    cdef _Names names = _Names()
    cdef NameSlot* slot = names.find(c_root.name)
    cdef ElementNodes elements = ElementNodes(root)
    cdef list tags = [<object>slot.name]
    cdef list parent = [-1]
    cdef list children = [untracked([])]
    cdef list runs = []
    cdef list depth = [0]
    cdef list in_link = [bool(slot.flags & LINK)]
    cdef _Ints depths = _Ints()
    cdef _Ints links = _Ints()
    cdef _Nodes stack = _Nodes()
    cdef _Nodes visible = _Nodes()
    cdef Bytes text
    cdef xmlNode* node
    cdef xmlNode* child
    cdef const char* first = NULL
    cdef Py_ssize_t first_size = 0
    cdef Py_ssize_t pieces
    cdef Py_ssize_t size
    cdef int index = 0
    cdef int p
    cdef bint link
    text.data = NULL
    text.size = text.capacity = 0
    elements.push(c_root)
    depths.push(0)
    links.push((slot.flags & LINK) != 0)
    node = c_root
    try:
        while True:
            tick(index, "building the view")
            # The runs of element ``index`` and its visible children, pushed in reverse.
            own_runs = []
            visible.size = 0
            text.size = 0
            pieces = 0
            child = NULL if slot.flags & UNSHOWN_CONTENT else node.children
            while child is not NULL:
                if is_text(child):
                    if child.content is not NULL and child.content[0] != 0:
                        size = _strlen(<const char*>child.content)
                        if pieces == 0:
                            first = <const char*>child.content
                            first_size = size
                        elif pieces == 1:
                            text.size = 0
                            bytes_append(&text, first, first_size)
                            bytes_append(&text, <const char*>child.content, size)
                        else:
                            bytes_append(&text, <const char*>child.content, size)
                        pieces += 1
                elif child.type == XML_ELEMENT_NODE:
                    slot = names.find(child.name)
                    if not (slot.flags & INVISIBLE) and not (
                        remove_hidden and is_hidden(child, slot.flags)
                    ):
                        own_runs.append(
                            "" if pieces == 0
                            else decode(first, first_size) if pieces == 1
                            else decode(text.data, text.size)
                        )
                        pieces = 0
                        visible.push(child, 0)
                elif not (is_element_like(child) or is_skipped(child)):
                    raise NotHandledError("unexpected node type")
                child = child.next
            own_runs.append(
                "" if pieces == 0
                else decode(first, first_size) if pieces == 1
                else decode(text.data, text.size)
            )
            runs.append(untracked(own_runs))
            for k in range(visible.size - 1, -1, -1):
                stack.push(visible.nodes[k], index)
            if stack.size == 0:
                break
            stack.size -= 1
            node = stack.nodes[stack.size]
            p = stack.ints[stack.size]
            index = elements.size
            slot = names.find(node.name)
            link = (slot.flags & LINK) != 0 or links.data[p] != 0
            elements.push(node)
            tags.append(<object>slot.name)
            parent.append(p)
            children.append(untracked([]))
            (<list>children[p]).append(index)
            depth.append(depths.data[p] + 1)
            in_link.append(link)
            depths.push(depths.data[p] + 1)
            links.push(link)
    finally:
        PyMem_Free(text.data)
    return elements, tags, parent, children, runs, depth, in_link


# Py_UNICODE_ISSPACE of the first 256 code points as a table: the macro calls a function for
# every code point from 128 up, which the common Latin-1 letters would then pay.
cdef char LATIN1_SPACE[256]
for _code in range(256):
    LATIN1_SPACE[_code] = Py_UNICODE_ISSPACE(_code)


cdef inline bint is_space(Py_UCS4 character) noexcept:
    """``str.isspace`` of one character (what ``str.split()`` and ``re``'s ``\\s`` test)."""
    return LATIN1_SPACE[character] if character < 256 else Py_UNICODE_ISSPACE(character)


# --- counts and densities -----------------------------------------------------------------------

cdef Py_ssize_t normalized_length(str text) noexcept:
    """``len(" ".join(text.split()))``: non-space characters plus one per gap between words."""
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS1* narrow
    cdef Py_ssize_t spaces = 0
    cdef Py_ssize_t words = 0
    cdef bint space = True
    cdef bint current
    if kind == PyUnicode_1BYTE_KIND:
        narrow = PyUnicode_1BYTE_DATA(text)
        for j in range(length):
            current = LATIN1_SPACE[narrow[j]]
            spaces += current
            words += space and not current
            space = current
    else:
        for j in range(length):
            current = is_space(PyUnicode_READ(kind, data, j))
            spaces += current
            words += space and not current
            space = current
    return length - spaces + words - 1 if words else 0


cdef long long* int_array(Py_ssize_t size) except NULL:
    cdef long long* array = <long long*>PyMem_Malloc(max(size, 1) * sizeof(long long))
    if array is NULL:
        raise MemoryError()
    return array


cdef list int_list(long long* values, Py_ssize_t size):
    return [values[i] for i in range(size)]


cdef Py_ssize_t as_index(object value, Py_ssize_t low, Py_ssize_t high) except -2:
    """``value`` as a C index in ``[low, high)``; :class:`NotHandledError` for anything else (the
    Python code then deals with it as Python would)."""
    cdef Py_ssize_t index
    if type(value) is not int:
        raise NotHandledError("not an index")
    try:
        index = value
    except OverflowError:
        raise NotHandledError("not an index")
    if index < low or index >= high:
        raise NotHandledError("index out of range")
    return index


cdef Py_ssize_t* load_parents(list parent, Py_ssize_t size) except NULL:
    """The parents of a preorder view as C indices (the root's is -1)."""
    cdef Py_ssize_t* out = <Py_ssize_t*>PyMem_Malloc(max(size, 1) * sizeof(Py_ssize_t))
    if out is NULL:
        raise MemoryError()
    try:
        out[0] = -1
        for i in range(1, size):
            tick(i, "reading the parents")
            out[i] = as_index(parent[i], 0, size)
    except BaseException:
        PyMem_Free(out)
        raise
    return out


def count_nodes(runs, in_link, parent):
    """The lists of :class:`scrapy_cetd.page.density.NodeCounts` (chars, tags, link_chars,
    link_tags, run_chars) from a view's runs, link flags and parents, as
    :func:`scrapy_cetd.page.density.count_nodes` computes them; ``None`` for a malformed view."""
    if type(runs) is not list or type(in_link) is not list or type(parent) is not list:
        return None
    return _count_nodes(runs, in_link, parent)


cdef object _count_nodes(list runs, list in_link, list parent):
    cdef Py_ssize_t size = len(runs)
    if len(in_link) != size or len(parent) != size or size == 0:
        return None
    cdef long long* chars = NULL
    cdef long long* link_chars = NULL
    cdef long long* tags = NULL
    cdef long long* link_tags = NULL
    cdef char* links = NULL
    cdef list run_chars = []
    cdef list own
    cdef long long total
    cdef long long count
    cdef long long c, lc, t, lt
    cdef Py_ssize_t p
    cdef Py_ssize_t* parents = NULL
    try:
        parents = load_parents(parent, size)
        chars = int_array(size)
        link_chars = int_array(size)
        tags = int_array(size)
        link_tags = int_array(size)
        links = <char*>PyMem_Malloc(size)
        if links is NULL:
            raise MemoryError()
        for i in range(size):
            tick(i, "counting the text")
            element_runs = runs[i]
            if type(element_runs) is not list:
                return None
            own = []
            total = 0
            for run in <list>element_runs:
                if type(run) is not str:
                    return None
                count = normalized_length(<str>run)
                own.append(count)
                total += count
            run_chars.append(untracked(own))
            links[i] = bool(in_link[i])
            chars[i] = total
            link_chars[i] = total if links[i] else 0
            tags[i] = 0
            link_tags[i] = 0
        # Preorder puts every child after its parent, so a reverse scan sees children first.
        for i in range(size - 1, 0, -1):
            p = parents[i]
            c, lc, t, lt = chars[i], link_chars[i], tags[i], link_tags[i]
            chars[p] += c
            link_chars[p] += lc
            tags[p] += t + 1
            if links[i] or (t >= 1 and lt == t and lc == c):
                lt += 1
            link_tags[p] += lt
        return (
            int_list(chars, size),
            int_list(tags, size),
            int_list(link_chars, size),
            int_list(link_tags, size),
            run_chars,
        )
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(chars)
        PyMem_Free(link_chars)
        PyMem_Free(tags)
        PyMem_Free(link_tags)
        PyMem_Free(links)


cdef double EXACT = 9007199254740992.0  # 2**53: below it, int / int is one double division
cdef double E = math.e


cdef inline double composite(
    long long c, long long tags, long long link_chars, long long link_tags, double ratio
) except? -1.0:
    """:func:`scrapy_cetd.page.density.composite_text_density`, the same operations in the same
    order; products too large for exact double division go through Python ints."""
    if c <= 0:
        return 0.0
    cdef long long t = tags if tags > 1 else 1
    cdef long long lc = link_chars if link_chars > 1 else 1
    cdef long long lt = link_tags if link_tags > 1 else 1
    cdef long long non_link = c - link_chars if c - link_chars > 1 else 1
    cdef double base
    if <double>c * lc >= EXACT or <double>c * t >= EXACT or <double>lc * lt >= EXACT:
        return _composite_python(c, t, lc, lt, non_link, ratio)
    base = log(<double>(c * lc) / <double>non_link + ratio * <double>c + E)
    return (<double>c / <double>t) * log(<double>(c * t) / <double>(lc * lt)) / log(base)


cdef double _composite_python(object c, object t, object lc, object lt, object non_link,
                              double ratio) except? -1.0:
    base = math.log(c * lc / non_link + ratio * c + math.e)
    return (c / t) * math.log(c * t / (lc * lt)) / math.log(base)


cdef int load_ints(list values, long long* out, Py_ssize_t size) except -1:
    for i in range(size):
        value = values[i]
        if type(value) is not int:
            raise NotHandledError("not an int")
        out[i] = value
        if out[i] >= <long long>EXACT or out[i] < 0:
            raise NotHandledError("count out of range")
    return 0


def densities(chars, tags, link_chars, link_tags, ratio, composite):
    """:func:`scrapy_cetd.page.density.densities` on the lists of a ``NodeCounts`` (``ratio`` is its
    ``link_ratio``); ``None`` for lists it does not handle."""
    if type(chars) is not list or type(tags) is not list or type(link_chars) is not list or type(link_tags) is not list:
        return None
    return _densities(chars, tags, link_chars, link_tags, ratio, composite)


cdef object _densities(list chars, list tags, list link_chars,
              list link_tags, double ratio, bint composite_density):
    cdef Py_ssize_t size = len(chars)
    if len(tags) != size or len(link_chars) != size or len(link_tags) != size:
        return None
    cdef long long* c = NULL
    cdef long long* t = NULL
    cdef long long* lc = NULL
    cdef long long* lt = NULL
    cdef list values = []
    try:
        c = int_array(size)
        t = int_array(size)
        lc = int_array(size)
        lt = int_array(size)
        load_ints(chars, c, size)
        load_ints(tags, t, size)
        if not composite_density:
            for i in range(size):
                tick(i, "scoring densities")
                values.append(<double>c[i] / <double>(t[i] if t[i] > 1 else 1))
            return values
        load_ints(link_chars, lc, size)
        load_ints(link_tags, lt, size)
        for i in range(size):
            tick(i, "scoring densities")
            values.append(composite(c[i], t[i], lc[i], lt[i], ratio))
        return values
    except NotHandledError:
        return None
    finally:
        PyMem_Free(c)
        PyMem_Free(t)
        PyMem_Free(lc)
        PyMem_Free(lt)


def density_sums(children, run_chars, in_link, density, ratio, composite):
    """:func:`scrapy_cetd.page.density.density_sums`: per element, its runs scored as pseudo-nodes,
    then its children's densities, added in that order; ``None`` for lists it does not handle."""
    if type(children) is not list or type(run_chars) is not list or type(in_link) is not list or type(density) is not list:
        return None
    return _density_sums(children, run_chars, in_link, density, ratio, composite)


cdef object _density_sums(list children, list run_chars, list in_link,
                 list density, double ratio, bint composite_density):
    cdef Py_ssize_t size = len(children)
    if len(run_chars) != size or len(in_link) != size or len(density) != size:
        return None
    cdef list sums = []
    cdef double total
    cdef long long run
    cdef bint link
    cdef Py_ssize_t child
    for i in range(size):
        tick(i, "adding densities")
        own_runs = run_chars[i]
        own_children = children[i]
        if type(own_runs) is not list or type(own_children) is not list:
            return None
        link = bool(in_link[i])
        total = 0.0
        for value in <list>own_runs:
            if type(value) is not int:
                return None
            run = value
            if run:
                if not 0 < run < <long long>EXACT:
                    return None
                if composite_density:
                    total += composite(run, 0, run if link else 0, 0, ratio)
                else:
                    total += <double>run
        for value in <list>own_children:
            try:
                child = as_index(value, 0, size)
            except NotHandledError:
                return None
            total += <double>density[child]
        sums.append(total)
    return sums


cdef int load_floats(list values, double* out, Py_ssize_t size) except -1:
    for i in range(size):
        value = values[i]
        if type(value) is not float:
            raise NotHandledError("not a float")
        out[i] = <double>value
    return 0


def subtree_argmax(parent, values):
    """:func:`scrapy_cetd.extractors.cetd._subtree_argmax`: per node, the first node of its subtree (in
    document order) with the largest value; ``None`` for lists it does not handle."""
    if type(parent) is not list or type(values) is not list:
        return None
    return _subtree_argmax(parent, values)


cdef object _subtree_argmax(list parent, list values):
    cdef Py_ssize_t size = len(values)
    if len(parent) != size:
        return None
    cdef double* v = <double*>PyMem_Malloc(max(size, 1) * sizeof(double))
    cdef Py_ssize_t* best = <Py_ssize_t*>PyMem_Malloc(max(size, 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t* parents = NULL
    cdef Py_ssize_t p, candidate, current
    try:
        if v is NULL or best is NULL:
            raise MemoryError()
        load_floats(values, v, size)
        parents = load_parents(parent, size)
        for i in range(size):
            best[i] = i
        for i in range(size - 1, 0, -1):
            p = parents[i]
            candidate = best[i]
            current = best[p]
            if v[candidate] > v[current] or (v[candidate] == v[current] and candidate < current):
                best[p] = candidate
        return [best[i] for i in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(v)
        PyMem_Free(best)
        PyMem_Free(parents)


def smooth_over_siblings(children, values):
    """:func:`scrapy_cetd.extractors.cetd.smooth_over_siblings` on a view's children lists: the weighted
    (1, 2, 1) sibling average; ``None`` for lists it does not handle."""
    if type(children) is not list or type(values) is not list:
        return None
    return _smooth_over_siblings(children, values)


cdef object _smooth_over_siblings(list children, list values):
    cdef Py_ssize_t size = len(values)
    if len(children) != size:
        return None
    cdef double* v = <double*>PyMem_Malloc(max(size, 1) * sizeof(double))
    cdef double* smoothed = <double*>PyMem_Malloc(max(size, 1) * sizeof(double))
    cdef Py_ssize_t* own = NULL
    cdef Py_ssize_t count, node, k, capacity = 0
    cdef double total
    cdef int weight
    try:
        if v is NULL or smoothed is NULL:
            raise MemoryError()
        load_floats(values, v, size)
        for i in range(size):
            smoothed[i] = v[i]
        for position, siblings in enumerate(children):
            tick(position, "smoothing over siblings")
            if type(siblings) is not list:
                return None
            count = len(<list>siblings)
            if count > capacity:
                PyMem_Free(own)
                own = <Py_ssize_t*>PyMem_Malloc(count * sizeof(Py_ssize_t))
                if own is NULL:
                    raise MemoryError()
                capacity = count
            for k in range(count):
                own[k] = as_index((<list>siblings)[k], 0, size)
            for k in range(count):
                node = own[k]
                total = 2 * v[node]
                weight = 2
                if k > 0:
                    total += v[own[k - 1]]
                    weight += 1
                if k < count - 1:
                    total += v[own[k + 1]]
                    weight += 1
                smoothed[node] = total / weight
        return [smoothed[i] for i in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(v)
        PyMem_Free(smoothed)
        PyMem_Free(own)


def content_modes(parent, content, shells, shell_text, keep):
    """:func:`scrapy_cetd.page.output.content_modes`; ``keep`` is ``(DROP, SHELL, TEXT)``."""
    if type(parent) is not list:
        return None
    return _content_modes(parent, content, shells, shell_text, keep)


cdef object _content_modes(list parent, content, shells, bint shell_text, tuple keep):
    cdef Py_ssize_t size = len(parent)
    if len(content) != size or len(shells) != size:
        return None
    drop_mode, shell_mode, text_mode = keep
    if shell_text:
        shell_mode = text_mode
    cdef char* inside = <char*>PyMem_Malloc(max(size, 1))
    if inside is NULL:
        raise MemoryError()
    cdef list modes = []
    cdef Py_ssize_t p
    try:
        for i in range(size):
            tick(i, "choosing what to keep")
            p = as_index(parent[i], -1, i)
            inside[i] = bool(content[i]) or (p >= 0 and inside[p])
            if inside[i]:
                modes.append(text_mode)
            elif shells[i]:
                modes.append(shell_mode)
            else:
                modes.append(drop_mode)
        return modes
    except NotHandledError:
        return None
    finally:
        PyMem_Free(inside)


def own_modes(parent, content, keep):
    """:func:`scrapy_cetd.page.output.own_modes`; ``keep`` is ``(DROP, SHELL, TEXT)``."""
    if type(parent) is not list:
        return None
    return _own_modes(parent, content, keep)


cdef object _own_modes(list parent, content, tuple keep):
    cdef Py_ssize_t size = len(parent)
    if len(content) != size:
        return None
    drop_mode, shell_mode, text_mode = keep
    cdef char* flags = <char*>PyMem_Malloc(max(size, 1))  # 1: content, 2: content below
    cdef Py_ssize_t* parents = NULL
    if flags is NULL:
        raise MemoryError()
    try:
        parents = load_parents(parent, size)
        for i in range(size):
            tick(i, "choosing what to keep")
            flags[i] = 1 if content[i] else 0
        for i in range(size - 1, 0, -1):
            if flags[i]:
                flags[parents[i]] |= 2
        return [
            text_mode if flags[i] & 1 else shell_mode if flags[i] else drop_mode
            for i in range(size)
        ]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(flags)
        PyMem_Free(parents)


# --- markup and page furniture (cetd-plus) --------------------------------------------------------

def attribute_owners(root, attributes):
    """:func:`scrapy_cetd.page.dom.attribute_owners`: the elements of ``root``'s subtree (``root``
    first, then in document order) that carry any of ``attributes``, pairs of a name and a
    value (strings; the value ``None`` for any value); ``None`` for a root or pairs this module
    does not handle."""
    if not isinstance(root, _Element):
        return None
    cdef _Element element = <_Element>root
    if element._c_node is NULL or element._c_node.type != XML_ELEMENT_NODE:
        return None
    encoded = []
    for pair in attributes:
        if (
            type(pair) is not tuple
            or len(pair) != 2
            or type(pair[0]) is not str
            or not (pair[1] is None or type(pair[1]) is str)
        ):
            return None
        try:
            encoded.append((
                (<str>pair[0]).encode("utf-8"),
                None if pair[1] is None else (<str>pair[1]).encode("utf-8"),
            ))
        except UnicodeEncodeError:  # a lone surrogate
            return None
    return _attribute_owners(element, tuple(encoded))


cdef list _attribute_owners(_Element root, tuple attributes):
    cdef xmlNode* c_root = root._c_node
    cdef xmlNode* node = c_root
    cdef xmlAttr* attribute
    cdef const char* stored
    cdef list found = []
    cdef Py_ssize_t visited = 0
    while node is not NULL:
        tick(visited, "finding attributes")
        visited += 1
        if node.type == XML_ELEMENT_NODE and node.properties is not NULL:
            for name, value in attributes:
                attribute = find_attribute(node, <bytes>name)
                if attribute is NULL:
                    continue
                if value is not None:
                    stored = stored_value(attribute)
                    if stored is NULL:  # stored in pieces: compare the decoded value
                        if attributeValue(node, attribute) != (<bytes>value).decode("utf-8"):
                            continue
                    elif strcmp(stored, <bytes>value) != 0:
                        continue
                found.append(elementFactory(root._doc, node))
                break
        node = next_in_subtree(node, c_root)
    return found


cdef int ascii_lower_contains(const char* value, const char* needle) noexcept:
    """1 when ``value`` holds ``needle`` (lower-case ASCII) in any letter case, 0 when not, -1
    when ``value`` is not all ASCII (Python's ``str.lower`` may then map a letter to ASCII)."""
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t k
    cdef unsigned char c
    cdef int found = 0
    while value[i] != 0:
        if <unsigned char>value[i] >= 128:
            return -1
        if not found:
            k = 0
            while needle[k] != 0:
                c = <unsigned char>value[i + k]
                if c >= 65 and c <= 90:
                    c += 32
                if c != <unsigned char>needle[k]:  # also stops at the end of ``value``
                    break
                k += 1
            found = needle[k] == 0
        i += 1
    return found


cdef const char* stored_value(xmlAttr* attribute) noexcept:
    """The value of ``attribute`` as libxml2 stores it when that is one text node ("" when
    empty), else NULL."""
    cdef xmlNode* child = attribute.children
    if child is NULL:
        return ""
    if child.next is NULL and child.type == XML_TEXT_NODE and child.content is not NULL:
        return <const char*>child.content
    return NULL


cdef bint names_a_footer(xmlNode* node, object footer_name) except -1:
    """The ``footers`` test of :func:`scrapy_cetd.extractors.furniture.boilerplate` on one node:
    ``footer_name`` (``FOOTER_NAME``) finds its word in the id and class, which it reads only when
    they hold the letters ``footer`` in some case (or are not all ASCII): rarely."""
    cdef xmlAttr* identifier = find_attribute(node, "id")
    cdef xmlAttr* classes = find_attribute(node, "class")
    cdef xmlAttr* attribute
    cdef const char* value
    cdef bint maybe = False
    for k in range(2):
        attribute = identifier if k == 0 else classes
        if attribute is NULL:
            continue
        value = stored_value(attribute)
        maybe = maybe or value is NULL or ascii_lower_contains(value, "footer") != 0
    return maybe and footer_name.search(id_and_class(node, identifier, classes)) is not None


cdef str id_and_class(xmlNode* node, xmlAttr* identifier, xmlAttr* classes):
    """``f"{id} {class}"`` of ``node``, as the references read it (a missing one is "")."""
    return (
        f"{attributeValue(node, identifier) if identifier is not NULL else ''} "
        f"{attributeValue(node, classes) if classes is not NULL else ''}"
    )


cdef bint names_a_comment_section(xmlNode* node) except -1:
    """The ``comments`` test of :func:`scrapy_cetd.extractors.furniture.boilerplate` on one node: its id
    or class names comments or Disqus, or its ``itemtype`` is schema.org's ``Comment``."""
    cdef xmlAttr* identifier = find_attribute(node, "id")
    cdef xmlAttr* classes = find_attribute(node, "class")
    cdef xmlAttr* attribute
    cdef const char* value
    cdef int verdict
    cdef bint ascii = True
    for k in range(2):
        attribute = identifier if k == 0 else classes
        if attribute is NULL:
            continue
        value = stored_value(attribute)
        verdict = -1 if value is NULL else ascii_lower_contains(value, "comment")
        if verdict == 0:
            verdict = ascii_lower_contains(value, "disqus")
        if verdict == 1:
            return True
        ascii = ascii and verdict == 0
    if not ascii:
        names = id_and_class(node, identifier, classes).lower()
        if "comment" in names or "disqus" in names:
            return True
    attribute = find_attribute(node, "itemtype")
    return attribute is not NULL and attributeValue(node, attribute).endswith("schema.org/Comment")


def boilerplate(elements, tags, parent, chars, bint structural, bint comments, bint forms,
                bint footers, half, most, frozenset furniture_tags, frozenset furniture_roles,
                object footer_name):
    """The flags of :func:`scrapy_cetd.extractors.furniture.boilerplate`, whose constants come in as
    arguments; ``None`` for a view this module does not handle."""
    if not is_elements(elements) or type(tags) is not list or type(parent) is not list or type(chars) is not list:
        return None
    try:
        return _boilerplate(elements, tags, parent, chars, structural, comments, forms, footers,
                            half, most, furniture_tags, furniture_roles, footer_name)
    except NotHandledError:
        return None


cdef list _boilerplate(object elements, list tags, list parent, list chars, bint structural,
                       bint comments, bint forms, bint footers, object half, object most,
                       frozenset furniture_tags, frozenset furniture_roles, object footer_name):
    cdef Py_ssize_t size = len(elements)
    if len(tags) != size or len(parent) != size or len(chars) != size:
        raise NotHandledError("fields of different lengths")
    cdef char* drop = <char*>PyMem_Malloc(max(size, 1))
    if drop is NULL:
        raise MemoryError()
    cdef xmlNode* node
    cdef xmlAttr* role
    cdef bint furniture
    try:
        if size:
            drop[0] = 0
        for i in range(1, size):
            tick(i, "finding page furniture")
            if drop[as_index(parent[i], 0, i)]:
                drop[i] = 1
                continue
            node = node_at(elements, i)
            tag = tags[i]
            furniture = False
            if structural:
                furniture = tag in furniture_tags
                if not furniture:
                    role = find_attribute(node, "role")
                    furniture = role is not NULL and (
                        attributeValue(node, role).strip().lower() in furniture_roles
                    )
            if structural and (
                (forms and tag == "form" and chars[i] < half) or (furniture and chars[i] < most)
            ):
                drop[i] = 1
            elif footers and tag != "th" and chars[i] < half and names_a_footer(node, footer_name):
                drop[i] = 1
            elif comments and tag != "article" and tag != "main":
                drop[i] = names_a_comment_section(node)
            else:
                drop[i] = 0
        return [drop[i] != 0 for i in range(size)]
    finally:
        PyMem_Free(drop)


def without(elements, tags, parent, children, runs, depth, drop, bint href_links,
            frozenset link_tags):
    """The fields of :func:`scrapy_cetd.extractors.furniture.without`'s view (``LINK_TAGS`` comes in as
    ``link_tags``); ``None`` for a view this module does not handle."""
    if not is_elements(elements):
        return None
    for fields in (tags, parent, children, runs, depth, drop):
        if type(fields) is not list:
            return None
    try:
        return _without(elements, tags, parent, children, runs, depth, drop, href_links,
                        link_tags)
    except NotHandledError:
        return None


cdef tuple _without(object elements, list tags, list parent, list children, list runs, list depth,
                    list drop, bint href_links, frozenset link_tags):
    cdef Py_ssize_t size = len(elements)
    if size == 0 or any(len(fields) != size for fields in (tags, parent, children, runs, depth, drop)):
        raise NotHandledError("fields of different lengths")
    cdef char* dropped = <char*>PyMem_Malloc(size)
    cdef Py_ssize_t* new_index = <Py_ssize_t*>PyMem_Malloc(size * sizeof(Py_ssize_t))
    cdef char* links = <char*>PyMem_Malloc(size)
    cdef Py_ssize_t kept = 0
    cdef Py_ssize_t new = 0
    cdef Py_ssize_t p
    cdef Py_ssize_t c
    cdef Py_ssize_t last
    cdef bint changed
    cdef bint own
    cdef list own_children
    cdef list own_runs
    cdef list kept_children
    cdef list kept_runs
    cdef object new_elements = (
        ElementNodes((<ElementNodes>elements).root) if type(elements) is ElementNodes else []
    )
    cdef list new_tags = []
    cdef list new_parent = []
    cdef list new_children = []
    cdef list new_runs = []
    cdef list new_depth = []
    cdef list new_in_link = []
    try:
        if dropped is NULL or new_index is NULL or links is NULL:
            raise MemoryError()
        for i in range(size):
            dropped[i] = 1 if drop[i] else 0
        if dropped[0]:
            raise NotHandledError("the root is dropped")
        new_index[0] = 0
        kept = 1
        for i in range(1, size):
            if dropped[i]:
                new_index[i] = -1
                continue
            if dropped[as_index(parent[i], 0, i)]:
                raise NotHandledError("a kept element below a dropped one")
            new_index[i] = kept
            kept += 1
        for i in range(size):
            tick(i, "removing page furniture")
            if dropped[i]:
                continue
            own_children = children[i]
            own_runs = runs[i]
            if len(own_runs) != len(own_children) + 1:
                raise NotHandledError("runs do not match children")
            changed = False
            for child in own_children:
                if dropped[as_index(child, i + 1, size)]:
                    changed = True
                    break
            if not changed:
                new_children.append(untracked([new_index[<Py_ssize_t>child] for child in own_children]))
                new_runs.append(own_runs)
            else:
                kept_children = []
                kept_runs = [own_runs[0]]
                for k in range(len(own_children)):
                    c = as_index(own_children[k], i + 1, size)
                    if dropped[c]:  # (no negative indexing: wraparound is off)
                        last = len(kept_runs) - 1
                        kept_runs[last] = kept_runs[last] + own_runs[k + 1]
                    else:
                        kept_children.append(new_index[c])
                        kept_runs.append(own_runs[k + 1])
                new_children.append(untracked(kept_children))
                new_runs.append(untracked(kept_runs))
            tag = tags[i]
            own = tag in link_tags
            if own and href_links and tag == "a":
                own = find_attribute(node_at(elements, i), "href") is not NULL
            p = new_index[<Py_ssize_t>parent[i]] if i else -1
            links[new] = own or (new > 0 and links[p])
            if type(elements) is ElementNodes:
                (<ElementNodes>new_elements).push((<ElementNodes>elements).nodes[i])
            else:
                (<list>new_elements).append(elements[i])
            new_tags.append(tag)
            new_parent.append(p)
            new_depth.append(depth[i])
            new_in_link.append(links[new] != 0)
            new += 1
        return new_elements, new_tags, new_parent, new_children, new_runs, new_depth, new_in_link
    finally:
        PyMem_Free(dropped)
        PyMem_Free(new_index)
        PyMem_Free(links)


# --- what a selection keeps (cetd-plus) -----------------------------------------------------------

cdef char* flags_of(object values, Py_ssize_t size) except NULL:
    """The truth of each of ``values`` (``size`` of them) as C chars."""
    if len(values) != size:
        raise NotHandledError("fields of different lengths")
    cdef char* flags = <char*>PyMem_Malloc(max(size, 1))
    if flags is NULL:
        raise MemoryError()
    for i in range(size):
        tick(i, "reading flags")
        flags[i] = 1 if values[i] else 0
    return flags


cdef char* mode_codes(object modes, tuple keep, Py_ssize_t size) except NULL:
    """Each of ``modes`` as 0 (drop), 1 (shell), 2 (text) or 3 (none of ``keep``'s three)."""
    if len(modes) != size:
        raise NotHandledError("fields of different lengths")
    drop_mode, shell_mode, text_mode = keep
    cdef char* codes = <char*>PyMem_Malloc(max(size, 1))
    if codes is NULL:
        raise MemoryError()
    for i in range(size):
        tick(i, "reading modes")
        value = modes[i]
        codes[i] = (
            0 if value == drop_mode else 1 if value == shell_mode else 2 if value == text_mode
            else 3
        )
    return codes


cdef long long count_at(list counts, Py_ssize_t i) except? -1:
    """``counts[i]`` as a C integer; :class:`NotHandledError` for anything but an int."""
    value = counts[i]
    if type(value) is not int:
        raise NotHandledError("not a count")
    try:
        return value
    except OverflowError:
        raise NotHandledError("count out of range")


def ancestors_of(parent, content):
    """:func:`scrapy_cetd.page.flags.ancestors_of` on a view's parents; ``None`` for a malformed
    view."""
    if type(parent) is not list:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* own = NULL
    cdef char* below = NULL
    try:
        parents = load_parents(parent, size)
        own = flags_of(content, size)
        below = <char*>PyMem_Malloc(max(size, 1))
        if below is NULL:
            raise MemoryError()
        for i in range(size):
            below[i] = 0
        for i in range(size - 1, 0, -1):
            if own[i] or below[i]:
                below[parents[i]] = 1
        return [below[i] != 0 for i in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(own)
        PyMem_Free(below)


def holding_tags(parent, tags, names):
    """:func:`scrapy_cetd.page.flags.holding_tags`; ``None`` for a malformed view."""
    if type(parent) is not list or type(tags) is not list or type(names) is not frozenset:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* held = NULL
    try:
        if len(tags) != size:
            raise NotHandledError("fields of different lengths")
        parents = load_parents(parent, size)
        held = <char*>PyMem_Malloc(max(size, 1))
        if held is NULL:
            raise MemoryError()
        for i in range(size):
            tick(i, "finding named elements")
            held[i] = 1 if tags[i] in <frozenset>names else 0
        for i in range(size - 1, 0, -1):
            if held[i]:
                held[parents[i]] = 1
        return [held[i] != 0 for i in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(held)


cdef char* kept_flags(Py_ssize_t* parents, char* codes, Py_ssize_t size) except NULL:
    """:func:`scrapy_cetd.page.output.kept_elements` on parents and mode codes."""
    cdef char* kept = <char*>PyMem_Malloc(max(size, 1))
    if kept is NULL:
        raise MemoryError()
    if size:
        kept[0] = 1
    for i in range(1, size):
        kept[i] = codes[i] != 0 and kept[parents[i]]
    return kept


def kept_elements(parent, modes, tuple keep):
    """:func:`scrapy_cetd.page.output.kept_elements`; ``keep`` is ``(DROP, SHELL, TEXT)``;
    ``None`` for a malformed view."""
    if type(parent) is not list:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* codes = NULL
    cdef char* kept = NULL
    try:
        parents = load_parents(parent, size)
        codes = mode_codes(modes, keep, size)
        kept = kept_flags(parents, codes, size)
        return [kept[i] != 0 for i in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(codes)
        PyMem_Free(kept)


def kept_chars(parent, modes, chars, tuple keep):
    """:func:`scrapy_cetd.extractors.cetd_plus._kept_chars`; ``None`` for a malformed view."""
    if type(parent) is not list or type(chars) is not list:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* codes = NULL
    cdef char* kept = NULL
    cdef Py_ssize_t p
    total = 0
    try:
        if len(chars) != size:
            raise NotHandledError("fields of different lengths")
        parents = load_parents(parent, size)
        codes = mode_codes(modes, keep, size)
        kept = kept_flags(parents, codes, size)
        for i in range(size):
            tick(i, "counting kept text")
            p = parents[i]
            if codes[i] == 2 and kept[i] and (i == 0 or codes[p] != 2):
                total += count_at(chars, i)
            elif codes[i] == 0 and i and kept[p] and codes[p] == 2:
                total -= count_at(chars, i)
        return total
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(codes)
        PyMem_Free(kept)


def outermost_chars(parent, content, chars):
    """:func:`scrapy_cetd.extractors.cetd_plus._chars`; ``None`` for a malformed view."""
    if type(parent) is not list or type(chars) is not list:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* inside = NULL
    total = 0
    try:
        if len(chars) != size:
            raise NotHandledError("fields of different lengths")
        parents = load_parents(parent, size)
        inside = flags_of(content, size)
        for i in range(size):
            tick(i, "counting kept text")
            if i and inside[parents[i]]:
                inside[i] = 1
            elif inside[i]:
                total += count_at(chars, i)
        return total
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(inside)


cdef inline bint is_cjk(Py_UCS4 character) noexcept:
    """A kana, CJK ideograph or hangul syllable: a token alone (:mod:`scrapy_cetd.page.words`)."""
    return (
        0x3040 <= character <= 0x30ff
        or 0x3400 <= character <= 0x4dbf
        or 0x4e00 <= character <= 0x9fff
        or 0xac00 <= character <= 0xd7af
        or 0xf900 <= character <= 0xfaff
    )


cdef list text_tokens(str text):
    """:func:`scrapy_cetd.page.words.tokens`: the runs of characters the regular expression's
    ``[^\\W_]`` matches (``str.isalnum``) of the lower-cased text, each CJK character alone."""
    cdef str lowered = text.lower()
    cdef list found = []
    cdef Py_ssize_t size = len(lowered)
    cdef Py_ssize_t start = -1
    cdef Py_ssize_t i
    cdef Py_UCS4 character
    for i in range(size):
        character = lowered[i]
        if is_cjk(character):
            if start >= 0:
                found.append(lowered[start:i])
                start = -1
            found.append(lowered[i:i + 1])
        elif character.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            found.append(lowered[start:i])
            start = -1
    if start >= 0:
        found.append(lowered[start:size])
    return found


def caption_counts(parent, small, runs, images_of):
    """:func:`scrapy_cetd.extractors.cetd_plus._caption_counts`; ``None`` for a malformed
    view."""
    if type(parent) is not list or type(runs) is not list or type(images_of) is not dict:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* smalls = NULL
    cdef long long* ends = NULL
    cdef long long* totals = NULL
    cdef long long* in_alts = NULL
    cdef Py_ssize_t p
    cdef long long shared
    cdef dict own = {}
    cdef list words
    try:
        if len(runs) != size or size == 0:
            raise NotHandledError("fields of different lengths")
        parents = load_parents(parent, size)
        smalls = flags_of(small, size)
        ends = int_array(size)
        totals = int_array(size)
        in_alts = int_array(size)
        for i in range(size):
            ends[i] = i + 1
            totals[i] = 0
            in_alts[i] = 0
        for i in range(size - 1, 0, -1):
            tick(i, "finding captions")
            p = parents[i]
            if ends[i] > ends[p]:
                ends[p] = ends[i]
            if smalls[i]:
                element_runs = runs[i]
                if type(element_runs) is not list:
                    raise NotHandledError("runs not a list")
                words = text_tokens(" ".join(<list>element_runs))
                if words:
                    own[i] = words
                shared = 0
                for word in words:
                    if word in images_of:
                        shared += 1
                totals[i] += len(words)
                in_alts[i] += shared
                totals[p] += totals[i]
                in_alts[p] += in_alts[i]
        return int_list(totals, size), int_list(in_alts, size), int_list(ends, size), own
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(smalls)
        PyMem_Free(ends)
        PyMem_Free(totals)
        PyMem_Free(in_alts)


def drop_link_blocks(parent, tags, chars, link_chars, list modes, double ratio,
                     frozenset block_tags, tuple keep, double epsilon):
    """:func:`scrapy_cetd.extractors.cetd_plus._drop_link_blocks` on a view's lists, changing ``modes``:
    the number of blocks dropped, or ``None`` (and ``modes`` unchanged) for a malformed view."""
    if type(parent) is not list or type(tags) is not list or type(chars) is not list:
        return None
    if type(link_chars) is not list:
        return None
    cdef Py_ssize_t size = len(parent)
    cdef Py_ssize_t* parents = NULL
    cdef char* codes = NULL
    cdef long long c
    cdef list dropped = []
    try:
        if len(tags) != size or len(chars) != size or len(link_chars) != size:
            raise NotHandledError("fields of different lengths")
        parents = load_parents(parent, size)
        codes = mode_codes(modes, keep, size)
        for i in range(1, size):
            tick(i, "dropping link blocks")
            if codes[i] == 2 and codes[parents[i]] == 2 and tags[i] in block_tags:
                c = count_at(chars, i)
                if c and <double>count_at(link_chars, i) > ratio * <double>c - epsilon:
                    codes[i] = 0
                    dropped.append(i)
    except NotHandledError:
        return None
    finally:
        PyMem_Free(parents)
        PyMem_Free(codes)
    drop_mode = keep[0]
    for i in dropped:
        modes[i] = drop_mode
    return len(dropped)


# --- rendering ------------------------------------------------------------------------------------

cdef class _Text:
    """:func:`scrapy_cetd.page.output._view_text`'s string building: whitespace runs collapsed
    to one space (across pieces too), lines broken at block elements, each line stripped, empty lines
    dropped. Only the current line is held in a buffer, of the narrowest kind its pieces need
    (one byte a character while they are all Latin-1, widened to two or four when a wider piece
    comes); each finished line becomes a compact string at once, so a page of long text holds
    neither its whole text in the buffer nor a line wider than its characters."""

    cdef char* line
    cdef int kind
    """Bytes a character in ``line``: 1, 2 or 4 (a ``PyUnicode_*_KIND``)."""
    cdef Py_ssize_t line_size
    """Characters in ``line``."""
    cdef Py_ssize_t line_capacity
    """Bytes ``line`` can hold."""
    cdef list lines

    def __cinit__(self):
        self.line = NULL
        self.kind = PyUnicode_1BYTE_KIND
        self.line_size = self.line_capacity = 0
        self.lines = []

    def __dealloc__(self):
        PyMem_Free(self.line)

    cdef int reserve_line(self, Py_ssize_t extra, int kind) except -1:
        """Room for ``extra`` more characters of kind ``kind``: the buffer widened to that kind
        when it is narrower (its characters moved from the last, which never overwrites one
        not yet moved)."""
        cdef Py_ssize_t needed
        cdef Py_ssize_t capacity
        cdef char* grown
        cdef Py_ssize_t j
        if kind < self.kind:
            kind = self.kind
        needed = (self.line_size + extra) * kind
        if needed > self.line_capacity:
            capacity = max(2 * self.line_capacity, needed, 256)
            grown = <char*>PyMem_Realloc(self.line, capacity)
            if grown is NULL:
                raise MemoryError()
            self.line = grown
            self.line_capacity = capacity
        if kind > self.kind:
            for j in range(self.line_size - 1, -1, -1):
                PyUnicode_WRITE(kind, self.line, j, PyUnicode_READ(self.kind, self.line, j))
            self.kind = kind
        return 0

    cdef int add(self, str text) except -1:
        """Append ``text`` with each whitespace run replaced by one space, a run that continues
        one the line ends with included."""
        cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef Py_UCS1* narrow
        cdef Py_UCS1* out
        cdef char* line
        cdef int line_kind
        cdef Py_ssize_t size
        cdef bint space
        cdef Py_UCS4 character
        self.reserve_line(length, kind)
        line = self.line
        line_kind = self.kind
        size = self.line_size
        space = size > 0 and PyUnicode_READ(line_kind, line, size - 1) == 32
        if kind == PyUnicode_1BYTE_KIND and line_kind == PyUnicode_1BYTE_KIND:
            narrow = PyUnicode_1BYTE_DATA(text)
            out = <Py_UCS1*>line
            for j in range(length):
                if LATIN1_SPACE[narrow[j]]:
                    if not space:
                        out[size] = 32
                        size += 1
                        space = True
                else:
                    out[size] = narrow[j]
                    size += 1
                    space = False
        else:
            for j in range(length):
                character = PyUnicode_READ(kind, data, j)
                if is_space(character):
                    if not space:
                        PyUnicode_WRITE(line_kind, line, size, 32)
                        size += 1
                        space = True
                else:
                    PyUnicode_WRITE(line_kind, line, size, character)
                    size += 1
                    space = False
        self.line_size = size
        return 0

    cdef int add_lines(self, str text) except -1:
        """Append ``text``, a preformatted one, as :meth:`add` does, but for its newlines, each
        of which ends the line (:meth:`newline`)."""
        cdef bint first = True
        for line in text.split("\n"):
            if not first:
                self.newline()
            self.add(line)
            first = False
        return 0

    cdef int newline(self) except -1:
        """End the current line: keep it, stripped, unless it is blank (white space and
        zero-width characters alone, :func:`scrapy_cetd.result.blank`); the buffer is then
        one byte a character again."""
        cdef int kind = self.kind
        cdef char* line = self.line
        cdef Py_ssize_t start = 0
        cdef Py_ssize_t end = self.line_size
        cdef bint seen = False
        cdef Py_UCS4 character
        while start < end and is_space(PyUnicode_READ(kind, line, start)):
            start += 1
        while end > start and is_space(PyUnicode_READ(kind, line, end - 1)):
            end -= 1
        self.line_size = 0
        self.kind = PyUnicode_1BYTE_KIND
        for k in range(start, end):
            character = PyUnicode_READ(kind, line, k)
            if not (is_space(character) or is_zero_width(character)):
                seen = True
                break
        if seen:
            self.lines.append(PyUnicode_FromKindAndData(kind, line + start * kind, end - start))
        return 0

    cdef str result(self):
        self.newline()
        return "\n".join(self.lines)


cdef inline bint is_zero_width(Py_UCS4 character) noexcept:
    """A character of :data:`scrapy_cetd.result.ZERO_WIDTH`."""
    return (
        character == 0x200B
        or character == 0x200C
        or character == 0x200D
        or character == 0x2060
        or character == 0xFEFF
    )


cdef inline bint not_xml(Py_UCS4 character) noexcept:
    """The characters of :data:`scrapy_cetd.page.output._NOT_XML`."""
    return (
        character <= 0x08
        or character == 0x0B
        or character == 0x0C
        or 0x0E <= character <= 0x1F
        or 0xD800 <= character <= 0xDFFF
        or character == 0xFFFE
        or character == 0xFFFF
    )


cdef str without_not_xml(str text):
    """``_NOT_XML.sub("", text)``."""
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS4* kept
    cdef Py_ssize_t size = 0
    cdef Py_UCS4 character
    for j in range(length):
        if not_xml(PyUnicode_READ(kind, data, j)):
            break
    else:
        return text
    kept = <Py_UCS4*>PyMem_Malloc(max(length, 1) * sizeof(Py_UCS4))
    if kept is NULL:
        raise MemoryError()
    try:
        for j in range(length):
            character = PyUnicode_READ(kind, data, j)
            if not not_xml(character):
                kept[size] = character
                size += 1
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, kept, size)
    finally:
        PyMem_Free(kept)


cdef enum:
    DROP = 0
    SHELL = 1
    TEXT = 2


cdef inline void append_child(xmlNode* parent, xmlNode* child) noexcept:
    """Link ``child`` (a fresh, unlinked node) as the last child of ``parent``."""
    child.parent = parent
    child.prev = parent.last
    child.next = NULL
    if parent.last is NULL:
        parent.children = child
    else:
        parent.last.next = child
    parent.last = child


cdef int check_names(xmlNode* node) except -1:
    """:class:`NotHandledError` for namespaces on ``node`` or its attributes: copying a subtree on
    its own could declare them elsewhere than the copy of the whole body does. Returns 1 when an
    attribute name holds a character :func:`scrapy_cetd.page.output.drop_unsafe_attributes` removes
    (a quote, ``<``, ``>``, ``=`` or ``/``), else 0."""
    cdef xmlAttr* attribute
    cdef int unsafe = 0
    if node.ns is not NULL or node.nsDef is not NULL:
        raise NotHandledError("namespaces")
    attribute = node.properties
    while attribute is not NULL:
        if attribute.ns is not NULL:
            raise NotHandledError("namespaces")
        if strpbrk(<const char*>attribute.name, b"\"'<>=/") is not NULL:
            unsafe = 1
        attribute = attribute.next
    return unsafe


cdef int check_subtree(xmlNode* top) except -1:
    """:func:`check_names` on every element of ``top``'s subtree (iteratively); 1 when any
    attribute name there is unsafe."""
    cdef xmlNode* node = top
    cdef int unsafe = 0
    while True:
        if node.type == XML_ELEMENT_NODE:
            unsafe |= check_names(node)
        if node.children is not NULL and node.type == XML_ELEMENT_NODE:
            node = node.children
            continue
        while node is not top and node.next is NULL:
            node = node.parent
        if node is top:
            return unsafe
        node = node.next


cdef class _Copier:
    """Builds the output document: shallow copies of the changed elements, deep copies of the
    untouched kept subtrees, and the text nodes between them."""

    cdef xmlDoc* doc
    cdef bint unsafe
    """Some copied attribute name is unsafe (see :func:`check_names`)."""

    cdef xmlNode* shallow(self, xmlNode* node) except NULL:
        if check_names(node):
            self.unsafe = True
        copy = xml_doc_copy_node(node, self.doc, 2)
        if copy is NULL:
            raise MemoryError()
        return copy

    cdef xmlNode* deep(self, xmlNode* node) except NULL:
        if node.type == XML_ELEMENT_NODE and check_subtree(node):
            self.unsafe = True
        copy = xml_doc_copy_node(node, self.doc, 1)
        if copy is NULL:
            raise MemoryError()
        return copy

    cdef int text(self, xmlNode* parent, str value) except -1:
        cdef Py_ssize_t size
        cdef const char* data
        if not value:
            return 0
        data = PyUnicode_AsUTF8AndSize(value, &size)
        if size > 0x7FFFFFFF:
            raise NotHandledError("text too long")
        copy = xml_new_doc_text_len(self.doc, <const_xmlChar*>data, <int>size)
        if copy is NULL:
            raise MemoryError()
        append_child(parent, copy)
        return 0


cdef class _Segment:
    """The text between two kept children of a changed element (or before the first, or after
    the last) while the removed children between them go, as
    :func:`scrapy_cetd.page.output.remove_keeping_tail` leaves it: the leading text nodes as they are
    when no removed child had a non-empty tail, else one text node holding everything, with
    the characters lxml refuses removed."""

    cdef Bytes leading
    cdef Bytes joined
    cdef xmlNode* first
    cdef xmlNode* last
    cdef Py_ssize_t mark
    cdef bint in_tail
    cdef bint has_joined

    def __cinit__(self):
        self.leading.data = self.joined.data = NULL
        self.leading.capacity = self.joined.capacity = 0
        self.reset()

    def __dealloc__(self):
        PyMem_Free(self.leading.data)
        PyMem_Free(self.joined.data)

    cdef void reset(self) noexcept:
        self.leading.size = self.joined.size = self.mark = 0
        self.first = self.last = NULL
        self.in_tail = self.has_joined = False

    cdef int add_text(self, xmlNode* node) except -1:
        cdef const char* content = <const char*>node.content
        cdef Py_ssize_t size = 0 if content is NULL else _strlen(content)
        if self.in_tail:
            if size:
                bytes_append(&self.joined, content, size)
            return 0
        if self.first is NULL:
            self.first = node
        self.last = node
        if size:
            bytes_append(&self.leading, content, size)
        return 0

    cdef int removed(self) except -1:
        """A removed child: the text after it is its tail."""
        if self.in_tail:
            self.end_tail()
        else:
            self.in_tail = True
            self.joined.size = 0
            if self.leading.size:
                bytes_append(&self.joined, self.leading.data, self.leading.size)
        self.mark = self.joined.size
        return 0

    cdef void end_tail(self) noexcept:
        if self.in_tail and self.joined.size > self.mark:
            self.has_joined = True

    cdef str finish(self, _Copier copier, xmlNode* parent):
        """Write the segment's text into ``parent`` (unless ``copier`` is ``None``: the text
        alone is wanted) and return it as the trimmed copy's ``.text`` or ``.tail`` reads it
        (``None`` when there is none)."""
        cdef xmlNode* node
        self.end_tail()
        if self.has_joined:
            value = without_not_xml(decode(self.joined.data, self.joined.size))
            if copier is not None:
                copier.text(parent, value)
            return value
        if self.first is NULL:
            return None
        node = self.first
        while copier is not None:
            append_child(parent, copier.deep(node))
            if node is self.last:
                break
            node = node.next
        return decode(self.leading.data, self.leading.size)


def render(view, modes, keep, block_tags, clean, html=True):
    """:func:`scrapy_cetd.page.output.render` on a ``DomView``: ``(html, text)``, or ``None`` for a
    view or tree this module does not handle. ``keep`` is ``(DROP, SHELL, TEXT)``; ``clean``
    is called on the output's root before it is serialised. With ``html`` false the HTML is
    neither built nor written: ``("", text)``, the same text.

    Instead of copying the whole root and trimming the copy, the output document is built from
    what is kept: an element that changes (a shell, or one that loses a child) is copied alone
    and filled; a kept element whose subtree stays as it is is copied whole by libxml2. The text
    around removed children is joined exactly as :func:`scrapy_cetd.page.output.remove_keeping_tail`
    joins it. lxml serialises the result, as it serialises the trimmed copy.
    """
    elements = view.elements
    children = view.children
    parent = view.parent
    runs = view.runs
    tags = view.tags
    if (
        not is_elements(elements)
        or type(children) is not list
        or type(parent) is not list
        or type(runs) is not list
        or type(tags) is not list
        or type(keep) is not tuple
        or type(block_tags) is not frozenset
    ):
        return None
    try:
        return _render(
            elements, children, parent, runs, tags, modes, keep, block_tags, clean, bool(html)
        )
    except NotHandledError:
        return None


cdef tuple _render(
    object elements,
    list children,
    list parent,
    list runs,
    list tags,
    modes,
    tuple keep,
    frozenset block_tags,
    clean,
    bint write_html,
):
    cdef Py_ssize_t size = len(elements)
    if (
        size == 0
        or len(children) != size
        or len(parent) != size
        or len(runs) != size
        or len(tags) != size
        or len(modes) != size
    ):
        raise NotHandledError("malformed view")
    drop_mode, shell_mode, text_mode = keep
    cdef _Ints mode = _Ints(size)
    cdef _Ints parents = _Ints(size)
    cdef _Ints kept = _Ints(size)
    cdef _Ints changed = _Ints(size)
    cdef _Ints visit = _Ints(size)
    cdef xmlNode** nodes = <xmlNode**>PyMem_Malloc(size * sizeof(xmlNode*))
    if nodes is NULL:
        raise MemoryError()
    cdef _Copier copier = _Copier()
    cdef xmlDoc* source_doc
    cdef xmlNode* root_copy = NULL
    cdef Py_ssize_t k
    try:
        for i in range(size):
            tick(i, "rendering the output")
            value = modes[i]
            if value is drop_mode:
                mode.push(DROP)
            elif value is text_mode:
                mode.push(TEXT)
            elif value is shell_mode:
                mode.push(SHELL)
            else:
                try:
                    mode.push(value)
                except (TypeError, OverflowError):
                    raise NotHandledError("mode")
            parents.push(<int>as_index(parent[i], -1 if i == 0 else 0, size))
            nodes[i] = node_at(elements, i)
            if type(children[i]) is not list or type(runs[i]) is not list:
                raise NotHandledError("malformed view")
        if mode.data[0] == DROP:
            return "", ""
        source_doc = nodes[0].doc
        # _kept
        kept.push(1)
        for i in range(1, size):
            kept.push(mode.data[i] != DROP and kept.data[parents.data[i]])
        # _changed, and the kept elements' nodes must be elements of the root's document
        for i in range(size):
            tick(i, "rendering the output")
            changed.push(0)
            if not kept.data[i]:
                continue
            if nodes[i].type != XML_ELEMENT_NODE or nodes[i].doc is not source_doc:
                raise NotHandledError("not an element of the document")
            own = <list>children[i]
            if mode.data[i] != TEXT or count_children(nodes[i]) != len(own):
                changed.data[i] = 1
                continue
            for child in own:
                if not kept.data[as_index(child, 0, size)]:
                    changed.data[i] = 1
                    break
        for i in range(size):
            visit.push(changed.data[i])
        for i in range(size - 1, 0, -1):
            if visit.data[i]:
                visit.data[parents.data[i]] = 1

        texts = [None] * size
        tails = [None] * size
        for i in range(size):
            tick(i, "rendering the output")
            if kept.data[i] and not changed.data[i]:
                own_runs = <list>runs[i]
                own = <list>children[i]
                if len(own_runs) != len(own) + 1:
                    raise NotHandledError("malformed view")
                texts[i] = own_runs[0]
                for k in range(len(own)):
                    tails[<Py_ssize_t>own[k]] = own_runs[k + 1]

        if not write_html:  # the texts of the changed elements, from a walk that copies nothing
            if visit.data[0]:
                _fill(None, NULL, nodes, children, mode, kept, changed, visit, texts, tails)
            return "", _view_text(tags, parents, kept, texts, tails, block_tags, nodes)
        copier.doc = xml_copy_doc(source_doc, 0)
        if copier.doc is NULL:
            raise MemoryError()
        if visit.data[0]:
            root_copy = copier.shallow(nodes[0])
        else:
            root_copy = copier.deep(nodes[0])
        xml_doc_set_root_element(copier.doc, root_copy)
        if visit.data[0]:
            _fill(copier, root_copy, nodes, children, mode, kept, changed, visit, texts, tails)
        html = _written(copier, clean)
        return html, _view_text(tags, parents, kept, texts, tails, block_tags, nodes)
    finally:
        PyMem_Free(nodes)
        if copier.doc is not NULL:
            xml_free_doc(copier.doc)


cdef str _written(_Copier copier, clean):
    """The output document of ``copier`` serialised by lxml (``clean`` called on its root
    first when a copied attribute name is unsafe). lxml owns the document from here and frees
    it when this returns, so the text is then written without the copy of the content."""
    tree = <_ElementTree>adoptExternalDocument(copier.doc, None, 1)
    copier.doc = NULL
    if copier.unsafe:
        clean(tree.getroot())
    return lxml.html.tostring(tree.getroot(), encoding="unicode", with_tail=False)


cdef Py_ssize_t count_children(xmlNode* node) noexcept:
    """``len(element)``: its element-like children."""
    cdef Py_ssize_t count = 0
    cdef xmlNode* child = node.children
    while child is not NULL:
        if is_element_like(child):
            count += 1
        child = child.next
    return count


cdef int _fill(
    _Copier copier,
    xmlNode* root_copy,
    xmlNode** nodes,
    list children,
    _Ints mode,
    _Ints kept,
    _Ints changed,
    _Ints visit,
    list texts,
    list tails,
) except -1:
    """:func:`scrapy_cetd.page.output._trim`, building instead of removing: fill the copy of each
    visited element with its kept children and its text, as the trimmed copy has them. With
    ``copier`` ``None`` nothing is copied (``root_copy`` and the copies are ``NULL``): only
    ``texts`` and ``tails`` are filled, as they would be."""
    cdef _Nodes stack = _Nodes()
    cdef _Segment segment = _Segment()
    cdef xmlNode* copy
    cdef xmlNode* original
    cdef xmlNode* child_node
    cdef Py_ssize_t i
    cdef Py_ssize_t k
    cdef Py_ssize_t child
    cdef Py_ssize_t owner
    cdef Py_ssize_t candidate
    cdef bint with_text
    stack.push(root_copy, 0)
    cdef Py_ssize_t visited = 0
    while stack.size:
        tick(visited, "rendering the output")
        visited += 1
        stack.size -= 1
        copy = stack.nodes[stack.size]
        i = stack.ints[stack.size]
        original = nodes[i]
        own = <list>children[i]
        if not changed.data[i]:
            # Unchanged: every text node stays, every element-like child is a kept view child.
            k = 0
            child_node = original.children
            while child_node is not NULL:
                if is_text(child_node):
                    if copier is not None:
                        append_child(copy, copier.deep(child_node))
                elif is_element_like(child_node):
                    child = own[k]
                    k += 1
                    if nodes[child] is not child_node:
                        raise NotHandledError("view does not match the tree")
                    if copier is not None:
                        append_child(copy, _child_copy(copier, child_node, child, visit, stack))
                    elif visit.data[child]:
                        stack.push(NULL, <int>child)
                else:
                    raise NotHandledError("unexpected node type")
                child_node = child_node.next
            continue
        with_text = mode.data[i] == TEXT
        k = 0
        owner = -1  # the text before the first kept child is the element's own
        segment.reset()
        child_node = original.children
        while child_node is not NULL:
            if is_text(child_node):
                if with_text:
                    segment.add_text(child_node)
            elif is_element_like(child_node):
                child = -1
                if k < len(own):
                    candidate = as_index(own[k], 0, len(children))
                    if nodes[candidate] is child_node:
                        k += 1
                        if kept.data[candidate]:
                            child = candidate
                if child < 0:
                    segment.removed()
                else:
                    if with_text:
                        _set_text(texts, tails, i, owner, segment.finish(copier, copy))
                    segment.reset()
                    if copier is not None:
                        append_child(copy, _child_copy(copier, child_node, child, visit, stack))
                    elif visit.data[child]:
                        stack.push(NULL, <int>child)
                    owner = child
            else:
                raise NotHandledError("unexpected node type")
            child_node = child_node.next
        if with_text:
            _set_text(texts, tails, i, owner, segment.finish(copier, copy))
    return 0


cdef int _set_text(list texts, list tails, Py_ssize_t i, Py_ssize_t owner, str value) except -1:
    """Record a segment's text: element ``i``'s text before its first kept child, else the
    tail of the kept child ``owner`` it follows."""
    if owner < 0:
        texts[i] = value
    else:
        tails[owner] = value
    return 0


cdef xmlNode* _child_copy(
    _Copier copier, xmlNode* node, Py_ssize_t child, _Ints visit, _Nodes stack
) except NULL:
    """The copy of kept child ``child``: alone and queued for filling when it is visited,
    whole otherwise."""
    cdef xmlNode* copy
    if visit.data[child]:
        copy = copier.shallow(node)
        stack.push(copy, <int>child)
        return copy
    return copier.deep(node)


cdef str _view_text(
    list tags,
    _Ints parents,
    _Ints kept,
    list texts,
    list tails,
    frozenset block_tags,
    xmlNode** nodes,
):
    """:func:`scrapy_cetd.page.output._view_text` on the arrays of :func:`_render`: the block
    elements and, inside code (``CODE_TAGS``), the elements of class ``CODE_LINE_CLASS`` break
    lines (:func:`scrapy_cetd.page.dom.code_line_class`); so do the newlines of the text and
    the tails inside a preformatted element (``PREFORMATTED_TAGS``)."""
    cdef Py_ssize_t size = len(tags)
    cdef _Text writer = _Text()
    cdef _Ints open_elements = _Ints()
    cdef char* block = <char*>PyMem_Malloc(max(size, 1))
    cdef char* in_code = <char*>PyMem_Malloc(max(size, 1))
    cdef char* in_pre = <char*>PyMem_Malloc(max(size, 1))
    cdef int index
    cdef bint inside
    if block is NULL or in_code is NULL or in_pre is NULL:
        PyMem_Free(block)
        PyMem_Free(in_code)
        PyMem_Free(in_pre)
        raise MemoryError()
    try:
        for i in range(size):
            inside = i > 0 and in_code[parents.data[i]]
            in_code[i] = 1 if inside or tags[i] in CODE_TAGS else 0
            in_pre[i] = 1 if (i > 0 and in_pre[parents.data[i]]) or tags[i] in PREFORMATTED_TAGS else 0
            block[i] = 1 if kept.data[i] and (
                tags[i] in block_tags
                or (inside and CODE_LINE_CLASS in attribute_text(nodes[i], "class").split())
            ) else 0
        for i in range(size):
            tick(i, "writing the text")
            if not kept.data[i]:
                continue
            while open_elements.size and open_elements.data[open_elements.size - 1] != parents.data[i]:
                open_elements.size -= 1
                _close(writer, open_elements.data[open_elements.size], block, in_pre, parents, tails)
            if block[i]:
                writer.newline()
            text = texts[i]
            if text:
                if in_pre[i]:
                    writer.add_lines(text)
                else:
                    writer.add(text)
            open_elements.push(<int>i)
        while open_elements.size:
            open_elements.size -= 1
            _close(writer, open_elements.data[open_elements.size], block, in_pre, parents, tails)
        return writer.result()
    finally:
        PyMem_Free(block)
        PyMem_Free(in_code)
        PyMem_Free(in_pre)


cdef int _close(
    _Text writer, int index, char* block, char* in_pre, _Ints parents, list tails
) except -1:
    """Close element ``index``: end its line if it is a block, then write its tail, whose
    newlines break lines when its parent is preformatted."""
    if block[index]:
        writer.newline()
    tail = tails[index]
    if index and tail:
        if in_pre[parents.data[index]]:
            writer.add_lines(tail)
        else:
            writer.add(tail)
    return 0


# --- the page-type classifier (page_types) --------------------------------------------------------

cdef enum:
    K_OTHER
    K_A
    K_P
    K_H1
    K_HEADING  # h2 to h6
    K_PRE
    K_CODE
    K_KEYBOARD  # kbd, samp
    K_TABLE
    K_TR
    K_LI
    K_LIST  # ul, ol
    K_DL
    K_FORM
    K_INPUT
    K_SELECT
    K_TEXTAREA
    K_BUTTON
    K_TIME
    K_ARTICLE
    K_SECTION
    K_BLOCKQUOTE
    K_MEDIA  # img, picture, svg, video
    K_NAV
    K_ASIDE
    K_MAIN
    K_CONTAINER  # the other record containers: div, td, dd, figure, details, tbody, header, footer
    K_KINDS

cdef dict TAG_KINDS = {
    "a": K_A, "p": K_P, "h1": K_H1, "h2": K_HEADING, "h3": K_HEADING, "h4": K_HEADING,
    "h5": K_HEADING, "h6": K_HEADING, "pre": K_PRE, "code": K_CODE, "kbd": K_KEYBOARD,
    "samp": K_KEYBOARD, "table": K_TABLE, "tr": K_TR, "li": K_LI, "ul": K_LIST, "ol": K_LIST,
    "dl": K_DL, "form": K_FORM, "input": K_INPUT, "select": K_SELECT, "textarea": K_TEXTAREA,
    "button": K_BUTTON, "time": K_TIME, "article": K_ARTICLE, "section": K_SECTION,
    "blockquote": K_BLOCKQUOTE, "img": K_MEDIA, "picture": K_MEDIA, "svg": K_MEDIA,
    "video": K_MEDIA, "nav": K_NAV, "aside": K_ASIDE, "main": K_MAIN, "div": K_CONTAINER,
    "td": K_CONTAINER, "dd": K_CONTAINER, "figure": K_CONTAINER, "details": K_CONTAINER,
    "tbody": K_CONTAINER, "header": K_CONTAINER, "footer": K_CONTAINER,
}
"""The tags :func:`body_counts` tells apart (those ``page_types`` names), by kind."""

# page_types.tags.RECORD_TAGS, as kinds
cdef bint IS_RECORD[K_KINDS]
for _kind in (K_LI, K_ARTICLE, K_SECTION, K_TR, K_LIST, K_TABLE, K_FORM, K_ASIDE, K_MAIN, K_DL,
              K_CONTAINER):
    IS_RECORD[_kind] = True

# page_types.body._HOLDS, as kinds: a link 1, media 2, a time 4, a heading 8, a field 16, a paragraph
# 32, a quotation 64 (the record parts, in the order of the records_with_ counts)
cdef int HOLDS[K_KINDS]
for _kind, _bit in ((K_A, 1), (K_MEDIA, 2), (K_TIME, 4), (K_H1, 8), (K_HEADING, 8), (K_INPUT, 16),
                    (K_SELECT, 16), (K_TEXTAREA, 16), (K_BUTTON, 16), (K_P, 32),
                    (K_BLOCKQUOTE, 64)):
    HOLDS[_kind] = _bit

cdef enum:
    RECORD_PARTS = 7
    MIN_RECORDS = 3  # page_types.body.MIN_RECORDS
    MIN_RECORD_CHARS = 10  # page_types.body.MIN_RECORD_CHARS
    LONG_RUN_CHARS = 120  # page_types.body.LONG_RUN_CHARS
    MAX_WORD = 21  # page_types.tokens._CLASS_WORD: a capital and twenty lower-case letters at most

cdef str CURRENCY = "$€£¥₹₽₩₪฿₫₴₦₺₱"  # page_types.body._CURRENCY

# Per Latin-1 character: 1 an ASCII digit, 2 a digit for str.isdigit, 4 a currency sign.
cdef unsigned char LATIN1_DIGIT_OR_SIGN[256]
for _code in range(256):
    LATIN1_DIGIT_OR_SIGN[_code] = (
        (1 if 48 <= _code <= 57 else 0)
        | (2 if Py_UNICODE_ISDIGIT(_code) else 0)
        | (4 if chr(_code) in CURRENCY else 0)
    )


# The signs beyond Latin-1 all lie in the Currency Symbols block, but for the baht.
cdef unsigned int BAHT = 0x0E3F
cdef bint CURRENCY_BLOCK[48]  # U+20A0 to U+20CF
for _sign in CURRENCY:
    if ord(_sign) >= 256 and ord(_sign) != BAHT:
        CURRENCY_BLOCK[ord(_sign) - 0x20A0] = True  # IndexError at import for another sign


cdef inline unsigned char digit_or_sign(Py_UCS4 character) noexcept:
    """The flags of :data:`LATIN1_DIGIT_OR_SIGN` of any character."""
    if character < 256:
        return LATIN1_DIGIT_OR_SIGN[character]
    cdef unsigned char flags = 2 if Py_UNICODE_ISDIGIT(character) else 0
    cdef unsigned int code = <unsigned int>character
    if code == BAHT or (code >= 0x20A0 and code < 0x20D0 and CURRENCY_BLOCK[code - 0x20A0]):
        flags |= 4
    return flags


cdef struct TextScan:
    # What page_types reads off a text given in pieces: its length, its ASCII digits and its
    # prices (page_types.body._prices: a currency sign with a digit among the two characters before
    # it and the two after it).
    long long length
    long long digits
    long long prices
    unsigned int window  # 2 bits per character for the last five: 1 a digit, 2 a currency sign


cdef inline void scan_character(TextScan* scan, unsigned char flags) noexcept:
    """One more character: the one two places back is now seen with both its neighbours."""
    cdef unsigned int window = ((scan.window << 2) | ((flags >> 1) & 3)) & 0x3FF
    scan.window = window
    # the sign at bits 5 (two back), digits at bits 0, 2 (after it) and 6, 8 (before it)
    if window & 0x20 and window & 0x145:
        scan.prices += 1


cdef inline void scan_end(TextScan* scan) noexcept:
    """The end of the text: its last two characters have nothing after them."""
    scan_character(scan, 0)
    scan_character(scan, 0)
    scan.window = 0


cdef int scan_text(TextScan* scan, str text) except -1:
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_UCS1* narrow
    cdef unsigned char flags
    cdef long long digits = 0
    scan.length += length
    if kind == PyUnicode_1BYTE_KIND:
        narrow = PyUnicode_1BYTE_DATA(text)
        for j in range(length):
            flags = LATIN1_DIGIT_OR_SIGN[narrow[j]]
            digits += flags & 1
            if flags or scan.window:
                scan_character(scan, flags)
    else:
        for j in range(length):
            flags = digit_or_sign(PyUnicode_READ(kind, data, j))
            digits += flags & 1
            if flags or scan.window:
                scan_character(scan, flags)
    scan.digits += digits
    return 0


cdef bint ends_with_question(object element_runs) except -1:
    """``page_types.body._ends_with_question``: the last run with a non-space character ends, its
    spaces aside, with a question mark (Latin, CJK or Arabic)."""
    cdef Py_ssize_t j
    cdef Py_UCS4 last
    for k in range(len(<list>element_runs) - 1, -1, -1):
        run = (<list>element_runs)[k]
        if type(run) is not str:
            raise NotHandledError("not a text run")
        j = PyUnicode_GET_LENGTH(<str>run) - 1
        while j >= 0 and is_space(PyUnicode_READ(PyUnicode_KIND(run), PyUnicode_DATA(run), j)):
            j -= 1
        if j >= 0:
            last = PyUnicode_READ(PyUnicode_KIND(run), PyUnicode_DATA(run), j)
            return last == 0x3F or last == 0xFF1F or last == 0x061F
    return False


cdef int scan_runs(TextScan* scan, object element_runs) except -1:
    if type(element_runs) is not list:
        raise NotHandledError("not a list of runs")
    for run in <list>element_runs:
        if type(run) is not str:
            raise NotHandledError("not a text run")
        scan_text(scan, <str>run)
    return 0


cdef str attribute_text(xmlNode* node, const char* name):
    """``element.get(name) or ""`` of the element at ``node``."""
    cdef xmlAttr* attribute = find_attribute(node, name)
    if attribute is NULL:
        return ""
    return attributeValue(node, attribute) or ""


def body_counts(elements, tags, parent, children, runs, chars, link_chars, subtree_tags,
                run_chars):
    """:func:`scrapy_cetd.page.page_types.body.body_counts`: the fields of its ``BodyCounts`` from a
    view's lists and its ``NodeCounts``' lists, in one pass over the elements (and one over the
    records of the run that holds the most text); ``None`` for lists it does not handle."""
    for value in (tags, parent, children, runs, chars, link_chars, subtree_tags, run_chars):
        if type(value) is not list:
            return None
    if not is_elements(elements):
        return None
    try:
        return _body_counts(elements, tags, parent, children, runs, chars, link_chars,
                            subtree_tags, run_chars)
    except (NotHandledError, OverflowError):
        return None


cdef tuple _body_counts(object elements, list tags, list parent, list children, list runs,
                        list chars, list link_chars, list subtree_tags, list run_chars):
    cdef Py_ssize_t size = len(tags)
    for value in (elements, parent, children, runs, chars, link_chars, subtree_tags, run_chars):
        if len(value) != size:
            return None
    if size == 0:
        return None
    cdef Py_ssize_t* parents = NULL
    cdef long long* c = NULL
    cdef long long* lc = NULL
    cdef long long* in_paragraphs = NULL
    cdef unsigned char* kinds = NULL
    cdef long long number[K_KINDS]
    cdef long long kind_chars[K_KINDS]
    cdef TextScan scan
    cdef long long h1_chars = -1
    cdef long long long_runs = 0, run_total = 0, nonempty = 0, questions = 0, nested = 0
    cdef long long link_lists = 0, number_inputs = 0, block = 0, n
    cdef Py_ssize_t p
    cdef int kind
    cdef object found
    for k in range(K_KINDS):
        number[k] = 0
        kind_chars[k] = 0
    scan.length = scan.digits = scan.prices = 0
    scan.window = 0
    try:
        parents = load_parents(parent, size)
        c = int_array(size)
        lc = int_array(size)
        in_paragraphs = int_array(size + 1)
        kinds = <unsigned char*>PyMem_Malloc(size)
        if kinds is NULL:
            raise MemoryError()
        load_ints(chars, c, size)
        load_ints(link_chars, lc, size)
        for i in range(size + 1):
            in_paragraphs[i] = 0
        for i in range(size):
            tag = tags[i]
            if type(tag) is not str or type(runs[i]) is not list:
                return None
            found = TAG_KINDS.get(tag)
            kinds[i] = K_OTHER if found is None else <int>found
        for i in range(size):
            tick(i, "counting the page type's numbers")
            kind = kinds[i]
            number[kind] += 1
            kind_chars[kind] += c[i]
            # Python reads tags[parent[i]]: the root's parent, -1, is the last element.
            p = parents[i] if i else size - 1
            if kind == K_P:
                in_paragraphs[p if i else size] += c[i]  # the root's own slot: the key -1
            elif kind == K_H1 or kind == K_HEADING:
                if kind == K_H1 and h1_chars < 0:
                    h1_chars = c[i]
                questions += ends_with_question(runs[i])
            elif kind == K_LIST:
                nested += kinds[p] == K_LI
                if <double>lc[i] > 0.7 * <double>c[i]:
                    link_lists += c[i]
            elif kind == K_INPUT:
                number_inputs += attribute_text(node_at(elements, i), "type") == "number"
            scan_runs(&scan, runs[i])
            own = run_chars[i]
            if type(own) is not list:
                return None
            for count in <list>own:
                if type(count) is not int:
                    return None
                n = count
                if n:
                    nonempty += 1
                    run_total += n
                    if n >= LONG_RUN_CHARS:
                        long_runs += n
        scan_end(&scan)
        for i in range(size + 1):
            if in_paragraphs[i] > block:
                block = in_paragraphs[i]
        records = _record_counts(elements, tags, children, runs, c, lc, subtree_tags, kinds,
                                 size)
        return (
            number[K_A],
            number[K_P],
            number[K_H1],
            number[K_H1] + number[K_HEADING],
            number[K_PRE],
            number[K_CODE] + number[K_KEYBOARD],
            number[K_TABLE],
            number[K_TR],
            number[K_LI],
            number[K_DL],
            number[K_FORM],
            number[K_INPUT] + number[K_SELECT] + number[K_TEXTAREA] + number[K_BUTTON],
            number[K_TEXTAREA],
            number[K_SELECT],
            number[K_BUTTON],
            number[K_TIME],
            number[K_ARTICLE],
            number[K_SECTION],
            number[K_BLOCKQUOTE],
            number[K_MEDIA],
            number[K_NAV],
            number[K_ASIDE],
            number[K_MAIN],
            kind_chars[K_P],
            kind_chars[K_H1] + kind_chars[K_HEADING],
            kind_chars[K_PRE],
            kind_chars[K_CODE],
            kind_chars[K_TABLE],
            h1_chars if h1_chars >= 0 else 0,
            long_runs,
            run_total,
            nonempty,
            scan.length,
            scan.digits,
            scan.prices,
            questions,
            nested,
            link_lists,
            number_inputs,
            block,
            *records,
        )
    finally:
        PyMem_Free(parents)
        PyMem_Free(c)
        PyMem_Free(lc)
        PyMem_Free(in_paragraphs)
        PyMem_Free(kinds)


cdef tuple _record_counts(object elements, list tags, list children, list runs, long long* c,
                          long long* lc, list subtree_tags, unsigned char* kinds,
                          Py_ssize_t size):
    """``page_types.body._record_counts``: the runs of three or more sibling containers alike in tag
    and class, each with ten characters or more, and the one of them that holds the most text
    (the first such)."""
    cdef long long found = 0, most = 0, best_chars = -1, total, end, best_links = 0
    cdef long long holding[RECORD_PARTS]
    cdef long long with_price = 0
    cdef int holds
    cdef Py_ssize_t candidates, kid
    cdef list best = None
    cdef dict groups
    cdef TextScan scan
    cdef Py_ssize_t step = 0
    for i in range(size):
        kids = children[i]
        if type(kids) is not list:
            raise NotHandledError("not a list of children")
        if len(<list>kids) < MIN_RECORDS:
            continue
        tick(step, "reading the page's records")
        step += 1
        candidates = 0
        for child in <list>kids:
            kid = as_index(child, 0, size)
            candidates += c[kid] >= MIN_RECORD_CHARS and IS_RECORD[kinds[kid]]
        if candidates < MIN_RECORDS:
            continue
        groups = {}
        for child in <list>kids:
            kid = child
            if c[kid] >= MIN_RECORD_CHARS and IS_RECORD[kinds[kid]]:
                key = (tags[kid], attribute_text(node_at(elements, kid), "class"))
                group = groups.get(key)
                if group is None:
                    groups[key] = [kid]
                else:
                    (<list>group).append(kid)
        for group in groups.values():
            if len(<list>group) < MIN_RECORDS:
                continue
            found += 1
            if len(<list>group) > most:
                most = len(<list>group)
            total = 0
            for kid in <list>group:
                total += c[kid]
            if total > best_chars:
                best_chars = total
                best = <list>group
    if best is None:
        return (0,) * 13
    for k in range(RECORD_PARTS):
        holding[k] = 0
    for kid in best:
        best_links += lc[kid]
        value = subtree_tags[kid]
        if type(value) is not int:
            raise NotHandledError("not a count")
        end = min(<long long>kid + <long long>value + 1, <long long>size)
        holds = 0
        scan.length = scan.digits = scan.prices = 0
        scan.window = 0
        for j in range(kid, end):
            holds |= HOLDS[kinds[j]]
            scan_runs(&scan, runs[j])
        scan_end(&scan)
        for k in range(RECORD_PARTS):
            if holds & (1 << k):
                holding[k] += 1
        with_price += scan.prices > 0
    return (found, len(best), most, best_chars, best_links,
            *[holding[k] for k in range(RECORD_PARTS)], with_price)


def class_words(root):
    """:func:`scrapy_cetd.page.page_types.tokens.class_words`: the words of the class names of the
    elements below ``root``, read off the libxml2 attributes (each word made into a str once);
    ``None`` for a root it does not handle."""
    if not isinstance(root, _Element):
        return None
    cdef _Element element = <_Element>root
    if element._c_node is NULL or element._c_node.type != XML_ELEMENT_NODE:
        return None
    try:
        return _class_words(element)
    except NotHandledError:
        return None


cdef struct Word:
    unsigned int hash  # 0: a free slot
    unsigned char length
    char text[MAX_WORD]


cdef class _Words:
    """A set of short ASCII words (open addressing), each added to ``found`` as a str once."""

    cdef Word* slots
    cdef Py_ssize_t capacity
    cdef Py_ssize_t size
    cdef set found

    def __cinit__(self):
        self.capacity = 256
        self.size = 0
        self.slots = <Word*>PyMem_Malloc(self.capacity * sizeof(Word))
        if self.slots is NULL:
            raise MemoryError()
        for i in range(self.capacity):
            self.slots[i].hash = 0
        self.found = set()

    def __dealloc__(self):
        PyMem_Free(self.slots)

    cdef int add(self, const char* text, Py_ssize_t length) except -1:
        cdef unsigned int hash = 2166136261u
        cdef Py_ssize_t position
        for i in range(length):
            hash = (hash ^ <unsigned char>text[i]) * 16777619u
        hash |= 1
        position = hash & (self.capacity - 1)
        while self.slots[position].hash:
            if (
                self.slots[position].hash == hash
                and self.slots[position].length == length
                and memcmp(self.slots[position].text, text, length) == 0
            ):
                return 0
            position = (position + 1) & (self.capacity - 1)
        self.slots[position].hash = hash
        self.slots[position].length = <unsigned char>length
        memcpy(self.slots[position].text, text, length)
        self.found.add(PyUnicode_DecodeUTF8(text, length, NULL))
        self.size += 1
        if 2 * self.size > self.capacity:
            self.grow()
        return 0

    cdef int grow(self) except -1:
        cdef Word* old = self.slots
        cdef Py_ssize_t old_capacity = self.capacity
        cdef Py_ssize_t position
        self.slots = <Word*>PyMem_Malloc(2 * old_capacity * sizeof(Word))
        if self.slots is NULL:
            self.slots = old
            raise MemoryError()
        self.capacity = 2 * old_capacity
        for i in range(self.capacity):
            self.slots[i].hash = 0
        for i in range(old_capacity):
            if old[i].hash:
                position = old[i].hash & (self.capacity - 1)
                while self.slots[position].hash:
                    position = (position + 1) & (self.capacity - 1)
                self.slots[position] = old[i]
        PyMem_Free(old)
        return 0


cdef inline bint is_lower(char character) noexcept:
    return 97 <= character <= 122


cdef int add_words(_Words words, const char* value, Py_ssize_t size) except -1:
    """The matches of ``[A-Z]?[a-z]{3,20}`` in the UTF-8 ``value``, lower-cased, into
    ``words`` (the pattern is ASCII: a byte of a non-ASCII character never matches)."""
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t start, run
    cdef char word[MAX_WORD]
    while i < size:
        start = i + 1 if 65 <= value[i] <= 90 else i
        run = 0
        while start + run < size and run < 20 and is_lower(value[start + run]):
            run += 1
        if run < 3:
            i += 1
            continue
        memcpy(word, value + i, start + run - i)
        word[0] = word[0] | 0x20  # lower-case the capital (a lower-case letter is unchanged)
        words.add(word, start + run - i)
        i = start + run
    return 0


cdef set _class_words(_Element root):
    cdef xmlNode* c_root = root._c_node
    cdef xmlNode* node = next_in_subtree(c_root, c_root)
    cdef xmlAttr* attribute
    cdef const char* stored
    cdef Py_ssize_t visited = 0
    cdef _Words words = _Words()
    while node is not NULL:
        tick(visited, "reading the class names")
        visited += 1
        if node.type == XML_ENTITY_REF_NODE:
            raise NotHandledError("an entity reference")  # XPath reads the entity's nodes
        if node.type == XML_ELEMENT_NODE and node.properties is not NULL:
            attribute = find_attribute(node, "class")
            if attribute is not NULL:
                stored = stored_value(attribute)
                if stored is not NULL:
                    add_words(words, stored, _strlen(stored))
                else:
                    value = attributeValue(node, attribute).encode("utf-8")
                    add_words(words, <bytes>value, len(value))
        node = next_in_subtree(node, c_root)
    return words.found


def weighted_sums(start, rows, values):
    """:func:`scrapy_cetd.page.page_types.model.weighted_sums`: ``start[k] + rows[0][k] * values[0] +
    rows[1][k] * values[1] ...``, each product rounded, then added, one row after the other, as
    Python's floats are; ``None`` for lists of anything but floats or of unequal lengths."""
    if type(start) is not list or type(rows) is not list or type(values) is not list:
        return None
    cdef Py_ssize_t size = len(start)
    if len(values) != len(rows):
        return None
    cdef double* sums = <double*>PyMem_Malloc(max(size, 1) * sizeof(double))
    cdef double value
    if sums is NULL:
        raise MemoryError()
    try:
        load_floats(start, sums, size)
        for r in range(len(rows)):
            row = rows[r]
            factor = values[r]
            if type(row) is not tuple or len(<tuple>row) != size or type(factor) is not float:
                return None
            value = <double>factor
            for k in range(size):
                weight = (<tuple>row)[k]
                if type(weight) is not float:
                    return None
                sums[k] = sums[k] + <double>weight * value
        return [sums[k] for k in range(size)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(sums)



cdef enum:
    LONG_LINK_CHARS = 30  # page_types.links.LONG_LINK_CHARS

# page_types.links._SUBHEADINGS, by level (h4 to h6 counted together), and page_types.tags.MEDIA
cdef dict LINK_KINDS = {"h2": 2, "h3": 3, "h4": 4, "h5": 4, "h6": 4, "img": 1, "picture": 1,
                        "svg": 1, "video": 1}


def link_counts(elements, tags, chars, link_chars, in_link):
    """:func:`scrapy_cetd.page.page_types.links.link_counts`: the fields of its ``LinkCounts`` from a
    view's elements (each link's ``href`` read off its libxml2 node, no proxy made) and their
    tags, characters, link characters and link flags; ``None`` for lists it does not handle."""
    if (
        not is_elements(elements) or type(tags) is not list or type(chars) is not list
        or type(link_chars) is not list or type(in_link) is not list
    ):
        return None
    cdef Py_ssize_t size = len(tags)
    if len(elements) != size or len(chars) != size or len(link_chars) != size or len(in_link) != size:
        return None
    try:
        return _link_counts(elements, <list>tags, <list>chars, <list>link_chars, <list>in_link, size)
    except NotHandledError:
        return None


cdef tuple _link_counts(
    object elements, list tags, list chars, list link_chars, list in_link, Py_ssize_t size
):
    cdef long long links = 0, link_total = 0, long_total = 0, headings = 0, linked_headings = 0
    cdef long long media = 0, linked_media = 0, h2 = 0, h3 = 0, h4_to_h6 = 0
    cdef long long c
    cdef long long target_links = 0, shared = 0, shared_links = 0
    cdef int kind
    cdef dict targets = {}
    cdef xmlNode* node
    cdef xmlAttr* attribute
    for i in range(size):
        tag = tags[i]
        if type(tag) is not str:
            raise NotHandledError("not a tag")
        if tag == "a":
            c = count_at(chars, i)
            links += 1
            link_total += c
            if c >= LONG_LINK_CHARS:
                long_total += c
            node = node_at(elements, i)
            attribute = find_attribute(node, "href")
            if attribute is not NULL:
                href = attributeValue(node, attribute)
                if href:
                    key = href.strip()
                    targets[key] = targets.get(key, 0) + 1
            continue
        found = LINK_KINDS.get(tag)
        if found is None:
            continue
        kind = found
        if kind == 1:
            media += 1
            flag = in_link[i]
            if type(flag) is not bool:
                raise NotHandledError("not a flag")
            linked_media += flag is True
            continue
        headings += 1
        if kind == 2:
            h2 += 1
        elif kind == 3:
            h3 += 1
        else:
            h4_to_h6 += 1
        c = count_at(chars, i)
        if c and 2 * count_at(link_chars, i) >= c:
            linked_headings += 1
    for count in targets.values():
        target_links += <long long>count
        if <long long>count >= 2:
            shared += 1
            shared_links += <long long>count
    return (links, link_total, long_total, headings, linked_headings, media, linked_media,
            target_links, shared, shared_links, h2, h3, h4_to_h6)

def tree_scores(read, nodes, values, roots, baseline):
    """:func:`scrapy_cetd.page.page_types.model.tree_scores`: each class's baseline plus the leaf
    value of each of its trees, added in the order of ``roots`` as Python adds floats; ``None``
    for features that are not all floats, or trees that are not laid out as
    :class:`~scrapy_cetd.page.page_types.model.BoostedTrees` lays them (a child out of range, a walk
    longer than the nodes)."""
    if (
        type(read) is not list
        or type(nodes) is not tuple
        or len(<tuple>nodes) != 4
        or type(values) is not tuple
        or type(roots) is not tuple
        or type(baseline) is not tuple
    ):
        return None
    feature, threshold, left, right = nodes
    cdef Py_ssize_t size = len(values)
    cdef Py_ssize_t inputs = len(read)
    cdef Py_ssize_t classes = len(baseline)
    if (
        type(feature) is not tuple or type(threshold) is not tuple or type(left) is not tuple
        or type(right) is not tuple or len(<tuple>feature) != size
        or len(<tuple>threshold) != size or len(<tuple>left) != size
        or len(<tuple>right) != size
    ):
        return None
    cdef double* scores = <double*>PyMem_Malloc(max(classes, 1) * sizeof(double))
    cdef Py_ssize_t k, node, at, steps
    cdef double value
    if scores is NULL:
        raise MemoryError()
    try:
        for k in range(classes):
            item = (<tuple>baseline)[k]
            if type(item) is not float:
                return None
            scores[k] = <double>item
        for pair in <tuple>roots:
            if type(pair) is not tuple or len(<tuple>pair) != 2:
                return None
            k = as_index((<tuple>pair)[0], 0, classes)
            node = as_index((<tuple>pair)[1], 0, size)
            steps = 0
            at = as_index((<tuple>feature)[node], -1, inputs)
            while at >= 0:
                steps += 1
                if steps > size:
                    return None
                item = (<list>read)[at]
                bound = (<tuple>threshold)[node]
                if type(item) is not float or type(bound) is not float:
                    return None
                if <double>item <= <double>bound:
                    node = as_index((<tuple>left)[node], 0, size)
                else:
                    node = as_index((<tuple>right)[node], 0, size)
                at = as_index((<tuple>feature)[node], -1, inputs)
            item = (<tuple>values)[node]
            if type(item) is not float:
                return None
            value = <double>item
            scores[k] = scores[k] + value
        return [scores[k] for k in range(classes)]
    except NotHandledError:
        return None
    finally:
        PyMem_Free(scores)


def outermost_named(root, tag):
    """:func:`scrapy_cetd.extractors.cetd_plus._outermost`: the elements named ``tag`` (no
    namespace) below ``root`` that lie inside no other one, in document order, found in one
    walk over the libxml2 nodes that skips the subtree of each one found (a proxy is made for
    those alone); ``None`` for a root it does not handle or an element of that local name in a
    namespace."""
    if not isinstance(root, _Element) or type(tag) is not str:
        return None
    cdef _Element element = <_Element>root
    cdef xmlNode* c_root = element._c_node
    if c_root is NULL or c_root.type != XML_ELEMENT_NODE:
        return None
    encoded = (<str>tag).encode("utf-8")
    cdef const char* name = <const char*>encoded
    cdef list found = []
    cdef xmlNode* node = c_root.children
    cdef Py_ssize_t step = 0
    while node is not NULL:
        step += 1
        tick(step, "finding elements by name")
        if node.type == XML_ELEMENT_NODE and strcmp(<const char*>node.name, name) == 0:
            if node.ns is not NULL:
                return None
            found.append(elementFactory(element._doc, node))
            while node is not c_root and node.next is NULL:  # past its subtree
                node = node.parent
            node = NULL if node is c_root else node.next
        else:
            node = next_in_subtree(node, c_root)
    return found


cdef str node_string(xmlNode* element):
    """The XPath string-value of ``element``: its descendant text nodes' content, in document
    order (:data:`scrapy_cetd.page.markup._STRING`); :class:`NotHandledError` for an entity
    reference, whose text XPath would read from elsewhere."""
    cdef list parts = []
    cdef xmlNode* node = element.children
    while node is not NULL:
        if node.type == XML_TEXT_NODE or node.type == XML_CDATA_SECTION_NODE:
            if node.content is not NULL:
                parts.append(PyUnicode_DecodeUTF8(<char*>node.content, _strlen(<char*>node.content), NULL))
        elif node.type == XML_ENTITY_REF_NODE:
            raise NotHandledError("an entity reference")
        node = next_in_subtree(node, element)
    return "".join(parts)


cdef inline bint named(xmlNode* node, const char* name) except -1:
    """``node`` is an element named ``name`` without a namespace; :class:`NotHandledError` for
    one of that local name in a namespace, which XPath's name test would not select."""
    if node.type != XML_ELEMENT_NODE or strcmp(<const char*>node.name, name) != 0:
        return False
    if node.ns is not NULL:
        raise NotHandledError("an element in a namespace")
    return True


cdef str attribute_or_none(xmlNode* node, const char* name):
    """The value of the attribute ``name`` (no namespace) of ``node``, or ``None``."""
    cdef xmlAttr* attribute = find_attribute(node, name)
    return None if attribute is NULL else attributeValue(node, attribute)


def title_text(tree):
    """:func:`scrapy_cetd.page.markup.title_text`: the page's headline, read in one walk below
    ``tree`` for its ``<h1>`` (skipping the subtree of each one without text) and, without
    one, one walk over the document for its ``og:title``, ``twitter:title`` and ``<title>``;
    ``""`` when it has none; ``None`` for a tree it does not handle."""
    if not isinstance(tree, _Element):
        return None
    cdef xmlNode* c_root = (<_Element>tree)._c_node
    if c_root is NULL or c_root.type != XML_ELEMENT_NODE:
        return None
    try:
        return _title_text(c_root)
    except (NotHandledError, UnicodeDecodeError):
        return None


cdef str _title_text(xmlNode* c_root):
    cdef xmlNode* node = c_root
    cdef Py_ssize_t step = 0
    cdef str text
    cdef str og = None
    cdef str twitter = None
    cdef str title = None
    while node is not NULL:  # descendant-or-self::h1
        step += 1
        tick(step, "reading the title")
        if named(node, "h1"):
            text = " ".join(node_string(node).split())
            if text:
                return text
            while node is not c_root and node.next is NULL:  # past its subtree
                node = node.parent
            node = NULL if node is c_root else node.next
        else:
            node = next_in_subtree(node, c_root)
    node = c_root.doc.children
    while node is not NULL:  # //meta[@property='og:title']/@content, then twitter's, //title/text()
        step += 1
        tick(step, "reading the title")
        if og is None and named(node, "meta") and attribute_or_none(node, "property") == "og:title":
            value = attribute_or_none(node, "content")
            if value is not None:
                og = " ".join(value.split()) or None
        if twitter is None and named(node, "meta") and attribute_or_none(node, "name") == "twitter:title":
            value = attribute_or_none(node, "content")
            if value is not None:
                twitter = " ".join(value.split()) or None
        if title is None and named(node, "title"):
            child = node.children
            while child is not NULL and title is None:
                if child.type == XML_ELEMENT_NODE:  # XPath orders its text among the title's
                    raise NotHandledError("an element inside a title")
                if child.type == XML_TEXT_NODE or child.type == XML_CDATA_SECTION_NODE:
                    if child.content is not NULL:
                        title = " ".join(PyUnicode_DecodeUTF8(
                            <char*>child.content, _strlen(<char*>child.content), NULL
                        ).split()) or None
                child = child.next
        node = next_in_document(node)
    return og or twitter or title or ""


cdef inline xmlNode* next_in_document(xmlNode* node) noexcept:
    """The node after ``node`` in document order (NULL after the last): the first child of an
    element, else the next sibling of the node or of its closest ancestor that has one."""
    if node.type == XML_ELEMENT_NODE and node.children is not NULL:
        return node.children
    while node.next is NULL:
        node = node.parent
        if node is NULL or node.type == XML_DOCUMENT_NODE or node.type == XML_HTML_DOCUMENT_NODE:
            return NULL
    return node.next


def count_elements(tree):
    """:func:`scrapy_cetd.page.dom.count_elements`: the element nodes of ``tree``'s subtree,
    itself included, counted in one walk; ``None`` for a tree it does not handle or one that
    holds an entity reference (whose expansion XPath may walk)."""
    if not isinstance(tree, _Element):
        return None
    cdef xmlNode* c_root = (<_Element>tree)._c_node
    if c_root is NULL or c_root.type != XML_ELEMENT_NODE:
        return None
    cdef Py_ssize_t count = 0
    cdef xmlNode* node = c_root
    while node is not NULL:
        if node.type == XML_ELEMENT_NODE:
            count += 1
        elif node.type == XML_ENTITY_REF_NODE:
            return None
        node = next_in_subtree(node, c_root)
    return count

# --- the markup guard (scrapy_cetd.guard), before the parse (page.parse) -------------------------

cdef inline Py_ssize_t attribute_end(
    int kind, void* data, Py_ssize_t length, Py_ssize_t i, Py_ssize_t* reach
) noexcept:
    """Where one match of :data:`scrapy_cetd.guard._ATTRIBUTE` from ``i`` ends, or -1 when it
    does not match there: separators, a name, then an optional ``=`` and value (quoted, to the
    closing quote or the end of the text, or unquoted). Each part is a repetition over a class
    that excludes what follows it, so the regular expression never backtracks into one, and
    this reads it forwards, once. ``reach`` is set to the furthest position read."""
    cdef Py_UCS4 c
    cdef Py_UCS4 quote
    cdef Py_ssize_t j
    while i < length:  # [\s/]*
        c = PyUnicode_READ(kind, data, i)
        if c != 0x2F and not is_space(c):
            break
        i += 1
    reach[0] = i
    if i >= length or PyUnicode_READ(kind, data, i) == 0x3E:  # [^\s/>]
        return -1
    i += 1
    while i < length:  # [^\s/>=]*
        c = PyUnicode_READ(kind, data, i)
        if c == 0x2F or c == 0x3E or c == 0x3D or is_space(c):
            break
        i += 1
    j = i
    while j < length and is_space(PyUnicode_READ(kind, data, j)):  # (?:\s*=
        j += 1
    reach[0] = j
    if j >= length or PyUnicode_READ(kind, data, j) != 0x3D:
        return i  # no value: the match ends with the name
    j += 1
    while j < length and is_space(PyUnicode_READ(kind, data, j)):  # \s*
        j += 1
    if j < length:
        quote = PyUnicode_READ(kind, data, j)
        if quote == 0x22 or quote == 0x27:  # "[^"]*(?:"|\Z) or '[^']*(?:'|\Z)
            j += 1
            while j < length and PyUnicode_READ(kind, data, j) != quote:
                j += 1
            reach[0] = j
            return j + 1 if j < length else j
    while j < length:  # [^\s>]*
        c = PyUnicode_READ(kind, data, j)
        if c == 0x3E or is_space(c):
            break
        j += 1
    reach[0] = j
    return j


cdef inline Py_ssize_t next_lt(int kind, void* data, Py_ssize_t length, Py_ssize_t i) noexcept:
    """The first ``<`` of the text at ``i`` or after it, or -1 (``memchr`` on a 1-byte text)."""
    cdef const char* found
    if kind == PyUnicode_1BYTE_KIND:
        if i >= length:
            return -1
        found = <const char*>memchr(<const char*>data + i, 0x3C, length - i)
        return -1 if found is NULL else found - <const char*>data
    while i < length:
        if PyUnicode_READ(kind, data, i) == 0x3C:
            return i
        i += 1
    return -1


cdef bint may_hold_a_long_tag(str text, Py_ssize_t max_attributes):
    """``False`` when no ``<`` followed by an ASCII letter, wherever it stands, begins a tag of
    more than ``max_attributes`` attributes as the guard reads one (the name, then
    :func:`attribute_end` repeated): the guard's scan, which reads only the tags that stand in
    data, then finds none either. ``True`` when one does, or when reading the tags from every
    ``<`` would cost more than a few times the text's length (tags that begin inside others'
    values, read again from there): the scan, linear, then decides."""
    cdef Py_ssize_t length = PyUnicode_GET_LENGTH(text)
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t budget = 4 * length + 4096
    cdef Py_ssize_t i = 0
    cdef Py_ssize_t j
    cdef Py_ssize_t end
    cdef Py_ssize_t count
    cdef Py_ssize_t reach = 0
    cdef Py_UCS4 c
    while True:
        i = next_lt(kind, data, length, i)
        if i < 0 or i + 1 >= length:
            return False
        c = PyUnicode_READ(kind, data, i + 1)
        if not (0x41 <= c <= 0x5A or 0x61 <= c <= 0x7A):
            i += 1
            continue
        j = i + 2
        while j < length:  # the rest of the name, [^\s/>]*
            c = PyUnicode_READ(kind, data, j)
            if c == 0x2F or c == 0x3E or is_space(c):
                break
            j += 1
        count = 0
        end = attribute_end(kind, data, length, j, &reach)
        while end >= 0:
            count += 1
            if count > max_attributes:
                return True
            end = attribute_end(kind, data, length, end, &reach)
        budget -= reach - i + 1
        if budget < 0:
            return True
        i += 1


def markup_scan(text, max_attributes):
    """:func:`scrapy_cetd.page.parse.markup_scan`: the guard's reason to refuse ``text``, or
    ``""``. One C loop over the text (:func:`may_hold_a_long_tag`) clears most pages; the
    guard's own scan (:func:`scrapy_cetd.guard._scan`, which
    :func:`~scrapy_cetd.guard.markup_problem` gives the same answer as) reads the others.
    ``None`` for a text that is no ``str`` or a limit that is no positive ``int``."""
    if type(text) is not str or type(max_attributes) is not int or max_attributes < 1:
        return None
    if not may_hold_a_long_tag(<str>text, max_attributes):
        return ""
    return guard_scan(text, max_attributes) or ""
