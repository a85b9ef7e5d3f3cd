#include "jpeg_block_arena.h"

/* One virtual block array, always wholly in memory. */
struct arena_block_array {
    JBLOCKARRAY rows;
    JDIMENSION row_count;
    JDIMENSION blocks_per_row;
    JDIMENSION max_access;
    boolean pre_zero;
    struct arena_block_array *next;
};

static jvirt_barray_ptr arena_request(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                      JDIMENSION row_count, JDIMENSION max_access) {
    block_arena *arena = (block_arena *)cinfo->client_data;
    if (pool_id != JPOOL_IMAGE) ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    struct arena_block_array *array = (*cinfo->mem->alloc_small)(cinfo, pool_id, sizeof(struct arena_block_array));
    array->rows = NULL;
    array->row_count = row_count;
    array->blocks_per_row = blocks_per_row;
    array->max_access = max_access;
    array->pre_zero = pre_zero;
    array->next = arena->requested;
    arena->requested = array;
    return (jvirt_barray_ptr)array;
}

static size_t array_bytes(const struct arena_block_array *array) {
    return (size_t)array->row_count * array->blocks_per_row * sizeof(JBLOCK);
}

/* Takes the largest of the requested arrays off the list: the arena goes to the largest first. */
static struct arena_block_array *take_largest(block_arena *arena) {
    struct arena_block_array **largest = &arena->requested;
    for (struct arena_block_array **link = &arena->requested; *link; link = &(*link)->next)
        if (array_bytes(*link) > array_bytes(*largest)) largest = link;
    struct arena_block_array *array = *largest;
    if (array) *largest = array->next;
    return array;
}

static void arena_realize(j_common_ptr cinfo) {
    block_arena *arena = (block_arena *)cinfo->client_data;
    (*arena->realize_samples)(cinfo);
    for (struct arena_block_array *array; (array = take_largest(arena));) {
        size_t bytes = array_bytes(array);
        JBLOCKROW blocks;
        /* JBLOCKs are 128 bytes: every array after the first stays aligned in the arena. */
        if (arena->base && bytes <= arena->capacity - arena->used) {
            blocks = (JBLOCKROW)(arena->base + arena->used);
            arena->used += bytes;
        } else {
            blocks = (JBLOCKROW)(*cinfo->mem->alloc_large)(cinfo, JPOOL_IMAGE, bytes ? bytes : 1);
        }
        /* libjpeg zeroes such arrays as they are first touched; the arena holds old data. */
        if (array->pre_zero) memset(blocks, 0, bytes);
        array->rows = (*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, (size_t)array->row_count * sizeof(JBLOCKROW) + 1);
        for (JDIMENSION row = 0; row < array->row_count; row++)
            array->rows[row] = blocks + (size_t)row * array->blocks_per_row;
    }
}

static JBLOCKARRAY arena_access(j_common_ptr cinfo, jvirt_barray_ptr pointer, JDIMENSION start_row,
                                JDIMENSION row_count, boolean writable) {
    struct arena_block_array *array = (struct arena_block_array *)pointer;
    (void)writable;
    if (!array->rows || row_count > array->max_access || start_row > array->row_count ||
        row_count > array->row_count - start_row)
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    return array->rows + start_row;
}

void block_arena_attach(j_common_ptr cinfo, block_arena *arena, unsigned char *base, size_t capacity) {
    arena->base = base;
    arena->capacity = base ? capacity : 0;
    arena->used = 0;
    arena->requested = NULL;
    arena->realize_samples = cinfo->mem->realize_virt_arrays;
    cinfo->client_data = arena;
    cinfo->mem->request_virt_barray = arena_request;
    cinfo->mem->realize_virt_arrays = arena_realize;
    cinfo->mem->access_virt_barray = arena_access;
}
