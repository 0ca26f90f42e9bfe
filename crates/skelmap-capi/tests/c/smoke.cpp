// The C ABI from C++: RAII handles, a std::vector of interleaved vertices, exceptions for
// failures. Built with g++ -Wall -Werror under AddressSanitizer and UBSan by
// tests/c_programs.rs, which compares the printed vertex with the Rust API.
//
// usage: smoke_cpp MODEL MALFORMED
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "skelmap.h"

namespace {

struct ModelDeleter {
    void operator()(SkelmapModel *m) const { skelmap_model_free(m); }
};
struct PoseDeleter {
    void operator()(SkelmapPose *p) const { skelmap_pose_free(p); }
};
struct LocalPoseDeleter {
    void operator()(SkelmapLocalPose *p) const { skelmap_local_pose_free(p); }
};
struct BlenderDeleter {
    void operator()(SkelmapBlender *b) const { skelmap_blender_free(b); }
};
using Model = std::unique_ptr<SkelmapModel, ModelDeleter>;
using Pose = std::unique_ptr<SkelmapPose, PoseDeleter>;
using LocalPose = std::unique_ptr<SkelmapLocalPose, LocalPoseDeleter>;
using Blender = std::unique_ptr<SkelmapBlender, BlenderDeleter>;

std::string last_error() {
    std::string msg(skelmap_last_error(nullptr, 0), '\0');
    skelmap_last_error(msg.data(), msg.size() + 1);
    return msg;
}

void check(SkelmapStatus s) {
    if (s != SKELMAP_STATUS_OK)
        throw std::runtime_error(std::string(skelmap_status_str(s)) + ": " + last_error());
}

Model open(const char *path) {
    SkelmapModel *raw = nullptr;
    check(skelmap_model_open_file(path, SKELMAP_OPEN_READ, &raw));
    return Model(raw);
}

struct Vertex {
    float position[3];
    float normal[3];
};

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: smoke_cpp MODEL MALFORMED\n");
        return 2;
    }
    try {
        Model model = open(argv[1]);
        SkelmapCounts counts{};
        check(skelmap_model_counts(model.get(), &counts));
        SkelmapMeshInfo info{};
        check(skelmap_mesh_info(model.get(), 0, &info));

        SkelmapPose *raw_pose = nullptr;
        check(skelmap_pose_new(&raw_pose));
        Pose pose(raw_pose);
        uint32_t b = counts.frames > 1 ? 1 : 0;
        check(skelmap_pose_sample(pose.get(), model.get(), 0, b, 0.5f,
                                  SKELMAP_INTERPOLATION_NLERP));
        std::vector<Vertex> vertices(info.vertices);
        check(skelmap_model_skin(model.get(), pose.get(), 0, vertices.front().position,
                                 sizeof(Vertex), vertices.front().normal, sizeof(Vertex),
                                 vertices.size()));
        for (const Vertex &v : vertices)
            for (float c : v.position)
                if (!std::isfinite(c)) throw std::runtime_error("non-finite position");
        const Vertex &first = vertices.front();
        std::printf("skin %s mesh=0 vertices=%u first=%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", argv[1],
                    info.vertices, first.position[0], first.position[1], first.position[2],
                    first.normal[0], first.normal[1], first.normal[2]);

        // The same frames as a local pose, blended alone at full weight (a normalised blend
        // of one layer is that layer, its rotations normalised once more) and posed: the
        // same vertices, within rounding.
        SkelmapLocalPose *raw = nullptr;
        check(skelmap_local_pose_new(&raw));
        LocalPose local(raw);
        check(skelmap_local_pose_new(&raw));
        LocalPose blended(raw);
        SkelmapBlender *raw_blender = nullptr;
        check(skelmap_blender_new(&raw_blender));
        Blender blender(raw_blender);
        check(skelmap_local_pose_sample(local.get(), model.get(), 0, b, 0.5f,
                                        SKELMAP_INTERPOLATION_NLERP));
        const SkelmapLayer layer{local.get(), 1.0f, SKELMAP_MASK_ALL, 0, 0, nullptr, 0};
        check(skelmap_blend(blender.get(), local.get(), &layer, 1, 0.0f, blended.get()));
        check(skelmap_pose_from_local(pose.get(), model.get(), blended.get()));
        std::vector<Vertex> again(info.vertices);
        check(skelmap_model_skin(model.get(), pose.get(), 0, again.front().position,
                                 sizeof(Vertex), again.front().normal, sizeof(Vertex),
                                 again.size()));
        for (size_t i = 0; i < again.size(); i++)
            for (int c = 0; c < 3; c++)
                if (std::fabs(again[i].position[c] - vertices[i].position[c]) >
                    1e-5f * std::fmax(1.0f, std::fabs(vertices[i].position[c])))
                    throw std::runtime_error("a pose from a local pose skinned differently");
        std::printf("local %s bones=%u\n", argv[1], skelmap_local_pose_bone_count(blended.get()));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    try {
        open(argv[2]);
        std::fprintf(stderr, "a malformed file opened\n");
        return 1;
    } catch (const std::runtime_error &e) {
        std::printf("malformed %s error=%s\n", argv[2], e.what());
    }
    return 0;
}
