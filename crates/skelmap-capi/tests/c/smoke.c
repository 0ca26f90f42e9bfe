/*
 * Exercises the skelmap C ABI the way a game runtime would, under AddressSanitizer and
 * UBSan (see tests/c_programs.rs, which builds and runs this and checks its output against
 * the Rust API).
 *
 * usage: smoke_c MODEL... [--malformed FILE] [--player DIR] [--morph MD3] [--no-morph DPM]
 *                [--runtime DPM]
 *
 * For each model: open it mapped, print its counts, names and a skinned vertex; open it
 * again from memory and check the skinned buffers are identical; probe the error paths.
 * Output lines are `key value...` for the Rust side to parse. Exit status 0 on success.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skelmap.h"

static int failures = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                               \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(call, expected)                                                     \
    do {                                                                                 \
        SkelmapStatus s_ = (call);                                                       \
        if (s_ != (expected)) {                                                          \
            char msg_[256];                                                              \
            skelmap_last_error(msg_, sizeof msg_);                                       \
            fprintf(stderr, "%s:%d: %s gave %s (%s), expected %s\n", __FILE__, __LINE__, \
                    #call, skelmap_status_str(s_), msg_, skelmap_status_str(expected));  \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* An interleaved GPU-style vertex: the library writes through byte strides. */
typedef struct {
    float position[3];
    float normal[3];
    float pad[2];
} Vertex;

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return data;
}

/* Samples frames 0 and min(1, frames - 1) at t = 0.5 and skins mesh 0 into `out`. */
static int skin_mesh0(const SkelmapModel *model, SkelmapPose *pose, Vertex *out, size_t cap) {
    SkelmapCounts c;
    CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
    uint32_t b = c.frames > 1 ? 1 : 0;
    CHECK_STATUS(skelmap_pose_sample(pose, model, 0, b, 0.5f, SKELMAP_INTERPOLATION_NLERP),
                 SKELMAP_STATUS_OK);
    /* MS3D keeps normals per triangle corner: positions only. */
    float *normals = skelmap_model_format(model) == SKELMAP_FORMAT_MS3D ? NULL : out[0].normal;
    SkelmapStatus s = skelmap_model_skin(model, pose, 0, out[0].position, sizeof(Vertex),
                                         normals, sizeof(Vertex), cap);
    CHECK_STATUS(s, SKELMAP_STATUS_OK);
    return s == SKELMAP_STATUS_OK;
}

/* The vertex shader's arithmetic: M = sum of weight / one * palette[joint] over every slot
 * of every set, then M * (position, 1). */
static void shader_skin(const float *palette, const float *position, const void *joints,
                        const void *weights, uint32_t v, uint32_t joint_bits, uint32_t weight_bits,
                        float one, float out[3]) {
    float m[12] = {0};
    for (int k = 0; k < 4; k++) {
        uint32_t j = joint_bits == 8 ? ((const uint8_t *)joints)[4 * v + k]
                                     : ((const uint16_t *)joints)[4 * v + k];
        uint32_t w = weight_bits == 8 ? ((const uint8_t *)weights)[4 * v + k]
                                      : ((const uint16_t *)weights)[4 * v + k];
        for (int i = 0; i < 12; i++) m[i] += (float)w / one * palette[12 * j + i];
    }
    for (int r = 0; r < 3; r++)
        out[r] += m[4 * r] * position[0] + m[4 * r + 1] * position[1] + m[4 * r + 2] * position[2] +
                  m[4 * r + 3];
}

/* GPU skinning buffers of a skeletal model at `pose`: skinned by the shader's arithmetic
 * (one or two influence sets, unorm8 or unorm16), every vertex from mesh 0 lies within the
 * error skelmap_model_gpu_error reports of `skinned` (what skelmap_model_skin wrote), since
 * `pose` is a frame of the model. Weights sum exactly to 255 or 65535. */
static void check_gpu(const SkelmapModel *model, const SkelmapPose *pose, const Vertex *skinned,
                      uint32_t vertices, const char *path) {
    SkelmapGpuOptions options[4] = {{4, 0, 8, 0}, {4, 0, 16, 0}, {8, 0, 8, 0}, {8, 0, 16, 16}};
    for (int o = 0; o < 4; o++) {
        SkelmapGpuMesh *gpu = NULL;
        SkelmapStatus s = skelmap_gpu_mesh_new(model, &options[o], &gpu);
        if (s == SKELMAP_STATUS_WRONG_KIND) {
            CHECK(gpu == NULL);
            return;
        }
        CHECK_STATUS(s, SKELMAP_STATUS_OK);
        if (gpu == NULL) return;
        SkelmapGpuMeshInfo info;
        CHECK_STATUS(skelmap_gpu_mesh_info(gpu, &info), SKELMAP_STATUS_OK);
        CHECK(info.sets == options[o].influences / 4);
        CHECK(info.weight_bits == options[o].weight_bits);
        CHECK(o != 3 || info.joint_bits == 16);
        SkelmapGpuError error;
        CHECK_STATUS(skelmap_model_gpu_error(model, &options[o], &error), SKELMAP_STATUS_OK);
        const void *buffers[10];
        size_t bytes[10];
        for (uint32_t b = 0; b < 10; b++) {
            SkelmapStatus bs =
                skelmap_gpu_mesh_buffer(gpu, b, (const uint8_t **)&buffers[b], &bytes[b]);
            if (info.sets == 1 && (b == 6 || b == 7)) {
                CHECK(bs == SKELMAP_STATUS_OUT_OF_RANGE && buffers[b] == NULL);
            } else {
                CHECK_STATUS(bs, SKELMAP_STATUS_OK);
            }
        }
        CHECK(bytes[SKELMAP_GPU_BUFFER_POSITIONS] == 12u * info.vertices);
        CHECK(bytes[SKELMAP_GPU_BUFFER_INDICES] == 4u * info.indices);
        CHECK(bytes[SKELMAP_GPU_BUFFER_WEIGHTS0] == info.vertices * 4u * info.weight_bits / 8);
        CHECK(bytes[SKELMAP_GPU_BUFFER_INVERSE_BINDS] == 48u * info.palette_entries);
        float one = info.weight_bits == 8 ? 255.0f : 65535.0f;
        float *palette = malloc(48 * (size_t)info.palette_entries);
        CHECK_STATUS(skelmap_gpu_mesh_palette(gpu, pose, palette, info.palette_entries - 1),
                     SKELMAP_STATUS_BUFFER_TOO_SMALL);
        CHECK_STATUS(skelmap_gpu_mesh_palette(gpu, pose, palette, info.palette_entries),
                     SKELMAP_STATUS_OK);
        const float *positions = buffers[SKELMAP_GPU_BUFFER_POSITIONS];
        const uint32_t *sources = buffers[SKELMAP_GPU_BUFFER_SOURCES];
        float worst = 0.0f;
        uint32_t compared = 0;
        for (uint32_t v = 0; v < info.vertices; v++) {
            uint32_t sum = 0;
            for (uint32_t set = 0; set < info.sets; set++)
                for (int k = 0; k < 4; k++) {
                    const void *w = buffers[SKELMAP_GPU_BUFFER_WEIGHTS0 + 2 * set];
                    sum += info.weight_bits == 8 ? ((const uint8_t *)w)[4 * v + k]
                                                 : ((const uint16_t *)w)[4 * v + k];
                }
            CHECK(sum == (uint32_t)one);
            if (sources[2 * v] != 0 || sources[2 * v + 1] >= vertices) continue;
            float got[3] = {0, 0, 0};
            for (uint32_t set = 0; set < info.sets; set++)
                shader_skin(palette, &positions[3 * v], buffers[SKELMAP_GPU_BUFFER_JOINTS0 + 2 * set],
                            buffers[SKELMAP_GPU_BUFFER_WEIGHTS0 + 2 * set], v, info.joint_bits,
                            info.weight_bits, one, got);
            const float *want = skinned[sources[2 * v + 1]].position;
            float d = sqrtf((got[0] - want[0]) * (got[0] - want[0]) +
                            (got[1] - want[1]) * (got[1] - want[1]) +
                            (got[2] - want[2]) * (got[2] - want[2]));
            worst = fmaxf(worst, d);
            compared++;
        }
        /* Two sets are blended one after the other here, as a shader does: rounding aside,
         * within the reported largest error. */
        CHECK(worst <= error.max * error.size * 1.001f + 1e-5f * error.size);
        printf("gpu %s sets=%u weight_bits=%u vertices=%u compared=%u max=%.3g rms=%.3g "
               "worst=%.3g\n",
               path, info.sets, info.weight_bits, info.vertices, compared, error.max, error.rms,
               error.size > 0 ? worst / error.size : 0.0f);
        free(palette);
        skelmap_gpu_mesh_free(gpu);
    }
}

static void print_vertex(const char *what, const Vertex *v) {
    printf(" %s=%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", what, v->position[0], v->position[1],
           v->position[2], v->normal[0], v->normal[1], v->normal[2]);
}

static void check_model(const char *path) {
    SkelmapModel *model = NULL;
    SkelmapStatus s = skelmap_model_open_file(path, 0, &model);
    if (s != SKELMAP_STATUS_OK) {
        char msg[512];
        skelmap_last_error(msg, sizeof msg);
        fprintf(stderr, "cannot open %s: %s: %s\n", path, skelmap_status_str(s), msg);
        failures++;
        return;
    }
    SkelmapCounts c;
    CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
    printf("model %s format=%u meshes=%u bones=%u frames=%u groups=%u vertices=%llu "
           "triangles=%llu code_page=%u\n",
           path, skelmap_model_format(model), c.meshes, c.bones, c.frames, c.frame_groups,
           (unsigned long long)c.vertices, (unsigned long long)c.triangles,
           skelmap_model_code_page(model));

    /* Names: sized with a NULL buffer first, then copied. */
    if (c.bones > 0) {
        size_t n = skelmap_bone_name(model, 0, NULL, 0);
        char *name = malloc(n + 1);
        CHECK(skelmap_bone_name(model, 0, name, n + 1) == n);
        SkelmapBone bone;
        CHECK_STATUS(skelmap_bone(model, 0, &bone), SKELMAP_STATUS_OK);
        CHECK(bone.parent == -1);
        int32_t found = skelmap_bone_index(model, name);
        CHECK(found == 0);
        printf("bone0 %s name=%s\n", path, name);
        free(name);
        CHECK_STATUS(skelmap_bone(model, c.bones, &bone), SKELMAP_STATUS_OUT_OF_RANGE);
    }
    CHECK(skelmap_bone_index(model, "no such bone, surely") == -1);
    if (c.frames > 0) {
        char name[128];
        skelmap_frame_name(model, c.frames - 1, name, sizeof name);
        int32_t found = skelmap_frame_index(model, name);
        CHECK(found >= 0 && (uint32_t)found <= c.frames - 1);
        printf("lastframe %s name=%s\n", path, name);
    }
    uint32_t grouped = 0;
    for (uint32_t g = 0; g < c.frame_groups; g++) {
        SkelmapFrameGroup group;
        CHECK_STATUS(skelmap_frame_group(model, g, &group), SKELMAP_STATUS_OK);
        CHECK(group.count >= 1 && group.first + group.count <= c.frames);
        CHECK(group.fps > 0.0f);
        grouped += group.count;
    }
    if (c.frame_groups > 0) CHECK(grouped <= c.frames);

    if (c.meshes == 0) {
        skelmap_model_free(model);
        return;
    }
    SkelmapMeshInfo info;
    CHECK_STATUS(skelmap_mesh_info(model, 0, &info), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_mesh_info(model, c.meshes, &info), SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_mesh_info(model, 0, &info), SKELMAP_STATUS_OK);
    uint32_t *tris = malloc(3 * sizeof(uint32_t) * (info.triangles + 1));
    CHECK_STATUS(skelmap_mesh_triangles(model, 0, tris, info.triangles), SKELMAP_STATUS_OK);
    for (uint32_t i = 0; i < 3 * info.triangles; i++) CHECK(tris[i] < info.vertices);
    free(tris);

    /* Texture coordinates: per vertex for DPM, SKM and HMP; MDL and MS3D store them per
     * triangle corner. */
    float *uvs = malloc(2 * sizeof(float) * info.vertices);
    uint32_t format = skelmap_model_format(model);
    SkelmapStatus uv_status = skelmap_mesh_texcoords(model, 0, uvs, 0, info.vertices);
    if (format == SKELMAP_FORMAT_MDL || format == SKELMAP_FORMAT_MS3D) {
        CHECK(uv_status == SKELMAP_STATUS_WRONG_KIND);
    } else {
        CHECK_STATUS(uv_status, SKELMAP_STATUS_OK);
        printf("uv %s first=%.9g,%.9g\n", path, uvs[0], uvs[1]);
    }
    free(uvs);
    SkelmapTerrainGrid grid;
    if (format == SKELMAP_FORMAT_HMP) {
        CHECK_STATUS(skelmap_terrain_grid(model, &grid), SKELMAP_STATUS_OK);
        CHECK((uint64_t)grid.columns * grid.rows == info.vertices);
        float *heights = malloc(sizeof(float) * info.vertices);
        CHECK_STATUS(skelmap_terrain_heights(model, 0, heights, info.vertices - 1),
                     SKELMAP_STATUS_BUFFER_TOO_SMALL);
        CHECK_STATUS(skelmap_terrain_heights(model, 0, heights, info.vertices), SKELMAP_STATUS_OK);
        printf("terrain %s columns=%u rows=%u cell=%.9g,%.9g height0=%.9g\n", path, grid.columns,
               grid.rows, grid.cell_x, grid.cell_y, heights[0]);
        free(heights);
    } else {
        CHECK_STATUS(skelmap_terrain_grid(model, &grid), SKELMAP_STATUS_WRONG_KIND);
    }

    SkelmapPose *pose = NULL;
    CHECK_STATUS(skelmap_pose_new(&pose), SKELMAP_STATUS_OK);
    Vertex *mapped = calloc(info.vertices, sizeof(Vertex));
    if (skin_mesh0(model, pose, mapped, info.vertices)) {
        printf("skin %s mesh=0 vertices=%u", path, info.vertices);
        print_vertex("first", &mapped[0]);
        print_vertex("last", &mapped[info.vertices - 1]);
        printf("\n");
        for (uint32_t i = 0; i < info.vertices; i++)
            for (int k = 0; k < 3; k++) CHECK(isfinite(mapped[i].position[k]));

        /* GPU buffers at frame 0, against skelmap_model_skin at the same frame. */
        SkelmapPose *frame0 = NULL;
        CHECK_STATUS(skelmap_pose_new(&frame0), SKELMAP_STATUS_OK);
        if (c.frames > 0 && c.bones > 0) {
            Vertex *at0 = calloc(info.vertices, sizeof(Vertex));
            CHECK_STATUS(skelmap_pose_sample(frame0, model, 0, 0, 0.0f, SKELMAP_INTERPOLATION_NLERP),
                         SKELMAP_STATUS_OK);
            CHECK_STATUS(skelmap_model_skin(model, frame0, 0, at0[0].position, sizeof(Vertex), NULL,
                                            0, info.vertices),
                         SKELMAP_STATUS_OK);
            check_gpu(model, frame0, at0, info.vertices, path);
            free(at0);
        } else {
            SkelmapGpuMesh *none = NULL;
            CHECK(skelmap_gpu_mesh_new(model, NULL, &none) != SKELMAP_STATUS_OK && none == NULL);
        }
        skelmap_pose_free(frame0);

        /* The compact layout, folded once: the same pose skins to the same positions within
         * 1e-4 of the model's size; a vertex-animated model has nothing to fold. */
        SkelmapCompact *compact = NULL;
        SkelmapStatus cs = skelmap_compact_new(model, &compact);
        if (cs == SKELMAP_STATUS_OK) {
            SkelmapCompactInfo ci;
            CHECK_STATUS(skelmap_compact_info(compact, &ci), SKELMAP_STATUS_OK);
            CHECK(ci.meshes == c.meshes && ci.bytes > 0);
            Vertex *folded = calloc(info.vertices, sizeof(Vertex));
            CHECK_STATUS(skelmap_compact_skin(compact, pose, 0, folded[0].position, sizeof(Vertex),
                                              folded[0].normal, sizeof(Vertex), info.vertices),
                         SKELMAP_STATUS_OK);
            float size = 1e-6f, worst = 0.0f;
            for (uint32_t i = 0; i < info.vertices; i++)
                for (int k = 0; k < 3; k++) {
                    size = fmaxf(size, fabsf(mapped[i].position[k]));
                    worst = fmaxf(worst, fabsf(mapped[i].position[k] - folded[i].position[k]));
                }
            CHECK(worst <= 1e-4f * size);
            /* In the layout's own order: each vertex where the order says, the same bits, and
             * the triangles remapped to index them there. */
            Vertex *own = calloc(info.vertices, sizeof(Vertex));
            uint32_t *order = calloc(info.vertices, sizeof(uint32_t));
            uint32_t *tris = calloc(3 * (size_t)info.triangles, sizeof(uint32_t));
            uint32_t *remapped = calloc(3 * (size_t)info.triangles, sizeof(uint32_t));
            CHECK_STATUS(skelmap_compact_skin_prepared(compact, pose, 0, own[0].position,
                                                       sizeof(Vertex), own[0].normal,
                                                       sizeof(Vertex), info.vertices),
                         SKELMAP_STATUS_OK);
            CHECK_STATUS(skelmap_compact_prepared_order(compact, 0, order, info.vertices),
                         SKELMAP_STATUS_OK);
            for (uint32_t i = 0; i < info.vertices; i++) {
                CHECK(order[i] < info.vertices);
                CHECK(memcmp(&own[i], &folded[order[i]], sizeof(Vertex)) == 0);
            }
            CHECK_STATUS(skelmap_mesh_triangles(model, 0, tris, info.triangles), SKELMAP_STATUS_OK);
            memcpy(remapped, tris, 3 * (size_t)info.triangles * sizeof(uint32_t));
            CHECK_STATUS(skelmap_compact_remap_triangles(compact, 0, remapped, info.triangles),
                         SKELMAP_STATUS_OK);
            for (size_t k = 0; k < 3 * (size_t)info.triangles; k++)
                CHECK(memcmp(&own[remapped[k]], &folded[tris[k]], sizeof(Vertex)) == 0);
            free(remapped);
            free(tris);
            free(order);
            free(own);
            free(folded);
        } else {
            CHECK(cs == SKELMAP_STATUS_WRONG_KIND && compact == NULL);
        }
        skelmap_compact_free(compact);
    }
    /* Error paths: a short buffer, a bad interpolation, a frame past the end. */
    CHECK_STATUS(skelmap_model_skin(model, pose, 0, mapped[0].position, sizeof(Vertex), NULL, 0,
                                    info.vertices - 1),
                 SKELMAP_STATUS_BUFFER_TOO_SMALL);
    CHECK_STATUS(skelmap_model_skin(model, pose, 0, mapped[0].position, 4, NULL, 0, 1),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_pose_sample(pose, model, 0, 0, 0.0f, 7), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_pose_sample(pose, model, c.frames, 0, 0.0f, SKELMAP_INTERPOLATION_SLERP),
                 SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_pose_sample(pose, model, 0, 0, NAN, SKELMAP_INTERPOLATION_SLERP),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    if (skelmap_pose_bone_count(pose) > 0) {
        float m[12];
        CHECK_STATUS(skelmap_pose_bone_world(pose, 0, m), SKELMAP_STATUS_OK);
        CHECK_STATUS(skelmap_pose_bone_world(pose, skelmap_pose_bone_count(pose), m),
                     SKELMAP_STATUS_OUT_OF_RANGE);
    }
    /* Attachment points: each named, found again by its name, and placed by the bind pose;
     * a bone's place is its world transform. */
    CHECK_STATUS(skelmap_pose_bind(pose, model), SKELMAP_STATUS_OK);
    for (uint32_t a = 0; a < c.attachments; a++) {
        SkelmapAttachment at;
        CHECK_STATUS(skelmap_attachment(model, a, &at), SKELMAP_STATUS_OK);
        char an[128];
        size_t n = skelmap_attachment_name(model, a, an, sizeof an);
        if (n > 0 && n < sizeof an) {
            int32_t found = skelmap_attachment_index(model, an);
            CHECK(found >= 0 && (uint32_t)found <= a);
        }
        float world[12], bone[12];
        CHECK_STATUS(skelmap_attachment_world(model, pose, a, world), SKELMAP_STATUS_OK);
        if (at.kind == SKELMAP_ATTACHMENT_BONE) {
            CHECK_STATUS(skelmap_pose_bone_world(pose, at.index, bone), SKELMAP_STATUS_OK);
            CHECK(memcmp(world, bone, sizeof world) == 0);
        }
        printf("attachment %s n=%u kind=%u index=%u\n", path, a, at.kind, at.index);
    }
    {
        SkelmapAttachment at;
        float world[12];
        CHECK_STATUS(skelmap_attachment(model, c.attachments, &at), SKELMAP_STATUS_OUT_OF_RANGE);
        CHECK_STATUS(skelmap_attachment_world(model, pose, c.attachments, world),
                     SKELMAP_STATUS_OUT_OF_RANGE);
        CHECK(skelmap_attachment_index(model, "no such attachment, surely") == -1);
    }

    /* The same file from caller memory (SKM: with its skeleton) skins identically. */
    size_t len = 0;
    unsigned char *data = read_file(path, &len);
    CHECK(data != NULL);
    SkelmapModel *borrowed = NULL;
    unsigned char *skp = NULL;
    if (skelmap_model_format(model) == SKELMAP_FORMAT_SKM) {
        CHECK_STATUS(skelmap_model_open_memory(data, len, 0, &borrowed), SKELMAP_STATUS_RESOLVE);
        CHECK(borrowed == NULL);
        char skp_path[4096];
        snprintf(skp_path, sizeof skp_path, "%.*sskp", (int)(strlen(path) - 3), path);
        size_t skp_len = 0;
        skp = read_file(skp_path, &skp_len);
        CHECK(skp != NULL);
        CHECK_STATUS(skelmap_model_open_skm_memory(data, len, skp, skp_len, 0, &borrowed),
                     SKELMAP_STATUS_OK);
    } else {
        CHECK_STATUS(skelmap_model_open_memory(data, len, 0, &borrowed), SKELMAP_STATUS_OK);
    }
    /* An MD5 mesh from memory is the mesh alone: its animations are the files beside it. */
    if (borrowed && skelmap_model_format(model) == SKELMAP_FORMAT_MD5) {
        SkelmapCounts alone;
        CHECK_STATUS(skelmap_model_counts(borrowed, &alone), SKELMAP_STATUS_OK);
        CHECK(alone.vertices == c.vertices && alone.frames == 1);
        skelmap_model_free(borrowed);
        borrowed = NULL;
    }
    if (borrowed) {
        Vertex *again = calloc(info.vertices, sizeof(Vertex));
        SkelmapPose *pose2 = NULL;
        CHECK_STATUS(skelmap_pose_new(&pose2), SKELMAP_STATUS_OK);
        if (skin_mesh0(borrowed, pose2, again, info.vertices))
            CHECK(memcmp(mapped, again, info.vertices * sizeof(Vertex)) == 0);
        skelmap_pose_free(pose2);
        free(again);
        skelmap_model_free(borrowed);
    }
    free(skp);
    free(data);
    free(mapped);
    skelmap_pose_free(pose);
    skelmap_model_free(model);
}

static void check_malformed(const char *path) {
    SkelmapModel *model = (SkelmapModel *)&failures; /* must be overwritten with NULL */
    SkelmapStatus s = skelmap_model_open_file(path, SKELMAP_OPEN_READ, &model);
    CHECK(s != SKELMAP_STATUS_OK);
    CHECK(model == NULL);
    size_t n = skelmap_last_error(NULL, 0);
    char *msg = malloc(n + 1);
    CHECK(skelmap_last_error(msg, n + 1) == n);
    printf("malformed %s status=%d message=%s\n", path, (int)s, msg);
    free(msg);
}

/* A Quake III player: its parts, where each hangs, and each placed with the legs in frame 3
 * and the torso in frame 1 (different clips); then the refusals. */
static void check_player(const char *dir) {
    SkelmapPlayer *player = NULL;
    CHECK_STATUS(skelmap_player_open(dir, NULL, NULL, SKELMAP_OPEN_READ, &player),
                 SKELMAP_STATUS_OK);
    if (player == NULL) return;
    uint32_t parts = skelmap_player_parts(player);
    CHECK(parts == 3);
    SkelmapPose *poses[3] = {NULL, NULL, NULL};
    const uint32_t frames[3] = {3, 1, 0};
    for (uint32_t i = 0; i < parts && i < 3; i++) {
        const SkelmapModel *part = skelmap_player_part(player, i);
        CHECK(part != NULL);
        char name[16];
        CHECK(skelmap_player_part_name(player, i, name, sizeof name) < sizeof name);
        int32_t parent = 0;
        uint32_t attachment = 0;
        CHECK_STATUS(skelmap_player_part_parent(player, i, &parent, &attachment),
                     SKELMAP_STATUS_OK);
        SkelmapCounts c;
        CHECK_STATUS(skelmap_model_counts(part, &c), SKELMAP_STATUS_OK);
        CHECK_STATUS(skelmap_pose_new(&poses[i]), SKELMAP_STATUS_OK);
        CHECK_STATUS(skelmap_pose_sample(poses[i], part, frames[i], frames[i], 0.0f,
                                         SKELMAP_INTERPOLATION_NLERP),
                     SKELMAP_STATUS_OK);
        printf("player part=%u name=%s parent=%d attachment=%u frames=%u groups=%u\n", i, name,
               (int)parent, attachment, c.frames, c.frame_groups);
    }
    float placed[36];
    CHECK_STATUS(skelmap_player_place(player, (const SkelmapPose *const *)poses, 3, placed, 36),
                 SKELMAP_STATUS_OK);
    for (uint32_t i = 0; i < 3; i++) {
        const float *m = placed + 12 * i;
        printf("placed part=%u origin=%.6f,%.6f,%.6f x=%.6f,%.6f,%.6f\n", i, m[3], m[7], m[11],
               m[0], m[4], m[8]);
    }
    CHECK_STATUS(skelmap_player_place(player, (const SkelmapPose *const *)poses, 3, placed, 35),
                 SKELMAP_STATUS_BUFFER_TOO_SMALL);
    CHECK_STATUS(skelmap_player_place(player, (const SkelmapPose *const *)poses, 2, placed, 36),
                 SKELMAP_STATUS_BUFFER_TOO_SMALL);
    SkelmapPose *holes[3] = {poses[0], NULL, poses[2]};
    CHECK_STATUS(skelmap_player_place(player, (const SkelmapPose *const *)holes, 3, placed, 36),
                 SKELMAP_STATUS_NULL_PARAMETER);
    CHECK(skelmap_player_part(player, 3) == NULL);
    CHECK(skelmap_player_part_name(player, 3, NULL, 0) == SIZE_MAX);
    CHECK(skelmap_player_parts(NULL) == 0);
    for (uint32_t i = 0; i < 3; i++) skelmap_pose_free(poses[i]);
    skelmap_player_free(player);
    SkelmapPlayer *none = (SkelmapPlayer *)&failures; /* must be overwritten with NULL */
    CHECK_STATUS(skelmap_player_open("/nonexistent/player", NULL, NULL, 0, &none),
                 SKELMAP_STATUS_IO);
    CHECK(none == NULL);
    CHECK_STATUS(skelmap_player_open(dir, NULL, "blue", 0, &none), SKELMAP_STATUS_RESOLVE);
    skelmap_player_free(NULL);
}

/* Opening with options: a Half-Life model at body values 0, 1 and 2 (each part's model as the
 * engine picks it) and with no options, an MD5 mesh with an animation given by path, then
 * the refusals. */
static void check_options(const char *hl1, const char *md5, const char *anim) {
    SkelmapOpenOptions options = {0};
    options.flags = SKELMAP_OPEN_READ;
    SkelmapModel *model = NULL;
    SkelmapCounts c;
    for (uint32_t body = 0; body < 3; body++) {
        options.body = body;
        CHECK_STATUS(skelmap_model_open_file_with(hl1, &options, &model), SKELMAP_STATUS_OK);
        if (model == NULL) continue;
        CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
        printf("options %s body=%u vertices=%llu triangles=%llu\n", hl1, body,
               (unsigned long long)c.vertices, (unsigned long long)c.triangles);
        skelmap_model_free(model);
    }
    CHECK_STATUS(skelmap_model_open_file_with(hl1, NULL, &model), SKELMAP_STATUS_OK);
    if (model != NULL) {
        CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
        printf("options %s default vertices=%llu\n", hl1, (unsigned long long)c.vertices);
        skelmap_model_free(model);
    }
    options = (SkelmapOpenOptions){0};
    options.animation = anim;
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &model), SKELMAP_STATUS_OK);
    if (model != NULL) {
        CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
        printf("options %s animation frames=%u groups=%u\n", md5, c.frames, c.frame_groups);
        skelmap_model_free(model);
    }
    /* Alone, the mesh has no animation beside it. */
    CHECK_STATUS(skelmap_model_open_file_with(md5, NULL, &model), SKELMAP_STATUS_OK);
    if (model != NULL) {
        CHECK_STATUS(skelmap_model_counts(model, &c), SKELMAP_STATUS_OK);
        printf("options %s alone frames=%u\n", md5, c.frames);
        skelmap_model_free(model);
    }
    SkelmapModel *none = (SkelmapModel *)&failures; /* must be overwritten with NULL */
    options.animation = "/nonexistent/skelmap.md5anim";
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &none), SKELMAP_STATUS_IO);
    CHECK(none == NULL);
    options.animation = hl1; /* no animation at all */
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &none), SKELMAP_STATUS_MALFORMED);
    options.animation = NULL;
    options.flags = 0x80;
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &none),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    options.flags = 0;
    options.skin = "\xff";
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &none),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    options.skin = NULL;
    options.root = "/nonexistent/root";
    CHECK_STATUS(skelmap_model_open_file_with(md5, &options, &none), SKELMAP_STATUS_RESOLVE);
    CHECK_STATUS(skelmap_model_open_file_with(NULL, NULL, &none), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_model_open_file_with(md5, NULL, NULL), SKELMAP_STATUS_NULL_PARAMETER);
    size_t n = skelmap_last_error(NULL, 0);
    CHECK(n > 0);
}

/* A vertex-animated model's GPU buffers: counts, buffer sizes, and vertex 0 tweened halfway
 * from frame 0 to frame 1 by the shader reference; a skeletal model is refused. */
static void check_morph(const char *path) {
    SkelmapModel *model = NULL;
    CHECK_STATUS(skelmap_model_open_file(path, SKELMAP_OPEN_READ, &model), SKELMAP_STATUS_OK);
    if (model == NULL) return;
    SkelmapGpuMorph *morph = NULL;
    CHECK_STATUS(skelmap_gpu_morph_new(model, &morph), SKELMAP_STATUS_OK);
    if (morph != NULL) {
        SkelmapGpuMorphInfo info;
        CHECK_STATUS(skelmap_gpu_morph_info(morph, &info), SKELMAP_STATUS_OK);
        const uint8_t *data = NULL;
        size_t bytes = 0;
        CHECK_STATUS(skelmap_gpu_morph_buffer(morph, SKELMAP_GPU_MORPH_BUFFER_RECORDS, &data, &bytes),
                     SKELMAP_STATUS_OK);
        CHECK(bytes == (size_t)info.frames * info.records_per_frame * info.stride);
        CHECK_STATUS(skelmap_gpu_morph_buffer(morph, SKELMAP_GPU_MORPH_BUFFER_GRIDS, &data, &bytes),
                     SKELMAP_STATUS_OK);
        CHECK(bytes == (size_t)info.frames * info.meshes * 8 * sizeof(float));
        CHECK_STATUS(skelmap_gpu_morph_buffer(morph, SKELMAP_GPU_MORPH_BUFFER_VERTICES, &data, &bytes),
                     SKELMAP_STATUS_OK);
        CHECK(bytes == (size_t)info.vertices * 16);
        CHECK_STATUS(skelmap_gpu_morph_buffer(morph, 99, &data, &bytes),
                     SKELMAP_STATUS_INVALID_ARGUMENT);
        CHECK(data == NULL && bytes == 0);
        float v[6];
        uint32_t b = info.frames > 1 ? 1 : 0;
        CHECK_STATUS(skelmap_gpu_morph_vertex(morph, 0, 0, b, 0.5f, v), SKELMAP_STATUS_OK);
        CHECK_STATUS(skelmap_gpu_morph_vertex(morph, info.vertices, 0, 0, 0.0f, v),
                     SKELMAP_STATUS_OUT_OF_RANGE);
        CHECK_STATUS(skelmap_gpu_morph_vertex(morph, 0, info.frames, 0, 0.0f, v),
                     SKELMAP_STATUS_OUT_OF_RANGE);
        printf("morph %s packing=%u frames=%u vertices=%u vertex=%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n",
               path, info.packing, info.frames, info.vertices, v[0], v[1], v[2], v[3], v[4], v[5]);
        skelmap_gpu_morph_free(morph);
    }
    skelmap_gpu_morph_free(NULL);
    skelmap_model_free(model);
}

static void check_no_morph(const char *path) {
    SkelmapModel *model = NULL;
    CHECK_STATUS(skelmap_model_open_file(path, SKELMAP_OPEN_READ, &model), SKELMAP_STATUS_OK);
    SkelmapGpuMorph *morph = (SkelmapGpuMorph *)&failures; /* must be overwritten with NULL */
    CHECK_STATUS(skelmap_gpu_morph_new(model, &morph), SKELMAP_STATUS_WRONG_KIND);
    CHECK(morph == NULL);
    skelmap_model_free(model);
}

/* The animation runtime on a six-bone tube with clips walk, run and shoot: every runtime
 * function once as a program uses it, then its refusals. Prints the blended pose of bone 4,
 * the two-bone IK's result and where the attachment goes, which the Rust test recomputes. */
static void check_runtime(const char *path) {
    SkelmapModel *model = NULL;
    CHECK_STATUS(skelmap_model_open_file(path, SKELMAP_OPEN_READ, &model), SKELMAP_STATUS_OK);
    if (model == NULL) return;
    static const char groups[] = "1 8 10 1 // walk\n9 8 10 1 // run\n17 8 10 1 // shoot\n";
    CHECK_STATUS(skelmap_model_set_framegroups(model, (const uint8_t *)groups, strlen(groups)),
                 SKELMAP_STATUS_OK);
    SkelmapLocalPose *rest = NULL, *walk = NULL, *run = NULL, *shoot = NULL, *shoot0 = NULL,
                     *recoil = NULL, *out = NULL, *copy = NULL;
    SkelmapLocalPose **all[] = {&rest, &walk, &run, &shoot, &shoot0, &recoil, &out, &copy};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        CHECK_STATUS(skelmap_local_pose_new(all[i]), SKELMAP_STATUS_OK);
    SkelmapBlender *blender = NULL;
    CHECK_STATUS(skelmap_blender_new(&blender), SKELMAP_STATUS_OK);
    SkelmapPose *pose = NULL;
    CHECK_STATUS(skelmap_pose_new(&pose), SKELMAP_STATUS_OK);
    if (!rest || !walk || !run || !shoot || !shoot0 || !recoil || !out || !copy || !blender || !pose)
        goto done;

    CHECK(skelmap_local_pose_bone_count(rest) == 0);
    CHECK_STATUS(skelmap_local_pose_bind(rest, model), SKELMAP_STATUS_OK);
    CHECK(skelmap_local_pose_bone_count(rest) == 6);
    CHECK_STATUS(skelmap_local_pose_sample_clip(walk, model, 0, 0.3f, true), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_sample_clip(run, model, 1, 0.3f, true), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_sample(shoot, model, 19, 20, 0.25f, SKELMAP_INTERPOLATION_SLERP),
                 SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_sample_clip(shoot0, model, 2, 0.0f, false), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_copy(copy, walk), SKELMAP_STATUS_OK);

    float from = -1.0f, to = -1.0f;
    CHECK_STATUS(skelmap_crossfade(0.1f, 0.4f, &from, &to), SKELMAP_STATUS_OK);
    CHECK(fabsf(from - 0.75f) < 1e-6f && fabsf(to - 0.25f) < 1e-6f);
    const float legs[6] = {1.0f, 1.0f, 1.0f, 0.5f, 0.0f, 0.0f};
    SkelmapLayer layers[3] = {
        {walk, from, SKELMAP_MASK_WEIGHTS, 0, 0, legs, 6},
        {run, to, SKELMAP_MASK_WEIGHTS, 0, 0, legs, 6},
        {shoot, 1.0f, SKELMAP_MASK_RANGE, 3, 5, NULL, 0},
    };
    CHECK_STATUS(skelmap_blend(blender, rest, layers, 3, 0.1f, out), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_additive_difference(shoot, shoot0, recoil), SKELMAP_STATUS_OK);
    SkelmapLayer additive = {recoil, 0.5f, SKELMAP_MASK_ALL, 0, 0, NULL, 0};
    CHECK_STATUS(skelmap_blender_add(blender, &additive, out), SKELMAP_STATUS_OK);
    float m[12];
    CHECK_STATUS(skelmap_local_pose_bone(out, 4, m), SKELMAP_STATUS_OK);
    printf("runtime %s blend4=%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", path, m[0], m[5], m[10], m[3], m[7],
           m[11]);

    /* Procedural bones: a quarter turn about z on bone 1 (parent space), bones 2..5 nudged
       up, and bone 3 set by a model-space transform, then multiplied by one. */
    const float quarter[12] = {0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0};
    const float up[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0.5f};
    const float place[12] = {1, 0, 0, 2, 0, 1, 0, 3, 0, 0, 1, 40};
    CHECK_STATUS(skelmap_local_pose_mul_bone(out, 1, quarter), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_mul_bones(out, 2, UINT32_MAX, up), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_set_bone(copy, 0, up), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_set_bone_model(out, model, 3, place), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_local_pose_mul_bone_model(out, model, 3, up), SKELMAP_STATUS_OK);

    /* Two-bone IK on bones 3, 4, 5 toward a point beside the chain, then an aim of bone 2. */
    SkelmapTwoBoneIk ik;
    CHECK_STATUS(skelmap_two_bone_ik_default(&ik), SKELMAP_STATUS_OK);
    CHECK(ik.weight == 1.0f && ik.soften == 1.0f && ik.mid_axis[2] == 1.0f);
    ik.target[0] = 10.0f;
    ik.target[1] = 6.0f;
    ik.target[2] = 55.0f;
    ik.mid_axis[0] = 1.0f;
    ik.mid_axis[2] = 0.0f;
    bool reached = false;
    CHECK_STATUS(skelmap_local_pose_two_bone_ik(out, model, &ik, 3, 4, 5, &reached),
                 SKELMAP_STATUS_OK);
    SkelmapAimIk aim;
    CHECK_STATUS(skelmap_aim_ik_default(&aim), SKELMAP_STATUS_OK);
    aim.target[0] = -30.0f;
    aim.target[2] = 20.0f;
    CHECK_STATUS(skelmap_local_pose_aim_ik(out, model, &aim, 2, NULL), SKELMAP_STATUS_OK);

    /* Posed: the attachment (the last bone) placed, the mesh skinned. */
    CHECK_STATUS(skelmap_pose_from_local(pose, model, out), SKELMAP_STATUS_OK);
    CHECK(skelmap_pose_bone_count(pose) == 6);
    float end[12], at[12];
    CHECK_STATUS(skelmap_pose_bone_world(pose, 5, end), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_attachment_world(model, pose, 0, at), SKELMAP_STATUS_OK);
    CHECK(memcmp(end, at, sizeof at) == 0);
    /* Bone 4 turned and rebuilt with what hangs from it: as if posed whole. */
    CHECK_STATUS(skelmap_local_pose_mul_bone(out, 4, quarter), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_pose_from_local_subtree(pose, model, out, 4), SKELMAP_STATUS_OK);
    SkelmapPose *whole = NULL;
    CHECK_STATUS(skelmap_pose_new(&whole), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_pose_from_local_subtree(whole, model, out, 4),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_pose_from_local(whole, model, out), SKELMAP_STATUS_OK);
    float rebuilt[12], posed[12];
    CHECK_STATUS(skelmap_pose_bone_world(pose, 5, rebuilt), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_pose_bone_world(whole, 5, posed), SKELMAP_STATUS_OK);
    CHECK(memcmp(rebuilt, posed, sizeof posed) == 0);
    CHECK_STATUS(skelmap_pose_from_local_subtree(pose, model, out, 6), SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_pose_from_local_subtree(NULL, model, out, 0),
                 SKELMAP_STATUS_NULL_PARAMETER);
    skelmap_pose_free(whole);
    Vertex v[1];
    CHECK_STATUS(skelmap_model_skin(model, pose, 0, v[0].position, sizeof(Vertex), v[0].normal,
                                    sizeof(Vertex), 1),
                 SKELMAP_STATUS_BUFFER_TOO_SMALL);
    printf("runtime-ik %s reached=%d end=%.6f,%.6f,%.6f attachment=%.6f,%.6f,%.6f\n", path,
           (int)reached, end[3], end[7], end[11], at[3], at[7], at[11]);

    /* Refusals: aliasing, ranges, kinds, NULLs, non-finite values. */
    CHECK_STATUS(skelmap_blend(blender, out, layers, 3, 0.1f, out), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_blend(blender, rest, layers, 3, -0.5f, out),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    SkelmapLayer reversed = {shoot, 1.0f, SKELMAP_MASK_RANGE, 5, 3, NULL, 0};
    CHECK_STATUS(skelmap_blend(blender, rest, &reversed, 1, 0.0f, out),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    SkelmapLayer unknown = {shoot, 1.0f, 7, 0, 0, NULL, 0};
    CHECK_STATUS(skelmap_blend(blender, rest, &unknown, 1, 0.0f, out),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    SkelmapLayer no_weights = {shoot, 1.0f, SKELMAP_MASK_WEIGHTS, 0, 0, NULL, 6};
    CHECK_STATUS(skelmap_blend(blender, rest, &no_weights, 1, 0.0f, out),
                 SKELMAP_STATUS_NULL_PARAMETER);
    SkelmapLayer self = {out, 1.0f, SKELMAP_MASK_ALL, 0, 0, NULL, 0};
    CHECK_STATUS(skelmap_blender_add(blender, &self, out), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_additive_difference(shoot, shoot0, shoot), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_local_pose_copy(copy, copy), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_local_pose_bone(out, 6, m), SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_local_pose_mul_bones(out, 6, 9, up), SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_local_pose_sample_clip(walk, model, 3, 0.0f, true),
                 SKELMAP_STATUS_OUT_OF_RANGE);
    CHECK_STATUS(skelmap_local_pose_two_bone_ik(out, model, &ik, 3, 4, 6, NULL),
                 SKELMAP_STATUS_OUT_OF_RANGE);
    ik.target[0] = NAN;
    CHECK_STATUS(skelmap_local_pose_two_bone_ik(out, model, &ik, 3, 4, 5, NULL),
                 SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_crossfade(INFINITY, 1.0f, &from, &to), SKELMAP_STATUS_INVALID_ARGUMENT);
    SkelmapLocalPose *empty = NULL;
    CHECK_STATUS(skelmap_local_pose_new(&empty), SKELMAP_STATUS_OK);
    CHECK_STATUS(skelmap_pose_from_local(pose, model, empty), SKELMAP_STATUS_WRONG_KIND);
    CHECK_STATUS(skelmap_local_pose_aim_ik(empty, model, &aim, 0, NULL), SKELMAP_STATUS_WRONG_KIND);
    skelmap_local_pose_free(empty);
    CHECK_STATUS(skelmap_local_pose_new(NULL), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_blender_new(NULL), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_local_pose_set_bone(NULL, 0, up), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_local_pose_mul_bone(out, 0, NULL), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK(skelmap_local_pose_bone_count(NULL) == 0);
done:
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) skelmap_local_pose_free(*all[i]);
    skelmap_blender_free(blender);
    skelmap_pose_free(pose);
    skelmap_model_free(model);
}

int main(int argc, char **argv) {
    printf("version %s simd=%s\n", skelmap_version(), skelmap_simd_level());
    /* NULL is accepted everywhere it could arrive. */
    skelmap_model_free(NULL);
    skelmap_pose_free(NULL);
    skelmap_local_pose_free(NULL);
    skelmap_blender_free(NULL);
    skelmap_gpu_mesh_free(NULL);
    CHECK_STATUS(skelmap_gpu_mesh_new(NULL, NULL, NULL), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_model_counts(NULL, NULL), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK(skelmap_model_format(NULL) == 0);
    CHECK(skelmap_model_code_page(NULL) == SKELMAP_CODE_PAGE_UTF8);
    CHECK(skelmap_bone_index(NULL, "x") == -1);
    CHECK(strcmp(skelmap_status_str(9999), "unknown status") == 0);
    SkelmapModel *none = NULL;
    CHECK_STATUS(skelmap_model_open_file(NULL, 0, &none), SKELMAP_STATUS_NULL_PARAMETER);
    CHECK_STATUS(skelmap_model_open_file("x", 0x80, &none), SKELMAP_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(skelmap_model_open_memory((const uint8_t *)"junk", 4, 0, &none),
                 SKELMAP_STATUS_UNKNOWN_FORMAT);
    CHECK_STATUS(skelmap_model_open_file("/nonexistent/skelmap.dpm", 0, &none), SKELMAP_STATUS_IO);

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--malformed") == 0 && i + 1 < argc) {
            check_malformed(argv[++i]);
        } else if (strcmp(argv[i], "--player") == 0 && i + 1 < argc) {
            check_player(argv[++i]);
        } else if (strcmp(argv[i], "--morph") == 0 && i + 1 < argc) {
            check_morph(argv[++i]);
        } else if (strcmp(argv[i], "--runtime") == 0 && i + 1 < argc) {
            check_runtime(argv[++i]);
        } else if (strcmp(argv[i], "--options") == 0 && i + 3 < argc) {
            check_options(argv[i + 1], argv[i + 2], argv[i + 3]);
            i += 3;
        } else if (strcmp(argv[i], "--no-morph") == 0 && i + 1 < argc) {
            check_no_morph(argv[++i]);
        } else {
            check_model(argv[i]);
        }
    }
    printf("failures %d\n", failures);
    return failures == 0 ? 0 : 1;
}
