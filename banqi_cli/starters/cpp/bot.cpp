// A small, complete DCTP bot for Chinese Dark Chess (banqi): it plays legal moves.
//
// The referee (or a GUI) starts this program and writes one command a line on stdin,
// "<id> <name> [args...]"; the bot answers each with one line "=<id> [payload]" (or
// "?<id> <reason>" when it cannot) and flushes at once (std::endl). It learns the game
// only from the echoes the referee sends after every ply, its own included:
// "10 move a2 a3" and "11 flip b6 K". It never prints anything else on stdout.
//
// Make it yours in choose_move: it gets the board, your colour and every legal move.
// Build: g++ -O2 -std=c++17 -o bot bot.cpp

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using Move = std::pair<int, int>;  // (from, to) square indexes; a flip is (square, square)

// Squares: index = (rank - 1) * 4 + file, a1 = 0 ... d8 = 31. The board holds a piece
// letter (red upper case K G M R N C P, black lower case), 'X' face down or '-' empty.
static std::string name_of(int sq) {
    return std::string(1, char('a' + sq % 4)) + char('1' + sq / 4);
}

static int index_of(const std::string& name) {
    if (name.size() != 2 || name[0] < 'a' || name[0] > 'd' || name[1] < '1' || name[1] > '8')
        return -1;
    return (name[1] - '1') * 4 + (name[0] - 'a');
}

static const std::string ORDER = "KGMRNCP";  // capture order, high to low

static bool own(char piece, const std::string& colour) {
    if (piece == 'X' || piece == '-') return false;
    return (std::isupper(static_cast<unsigned char>(piece)) != 0) == (colour == "red");
}

// Whether a piece may capture an adjacent enemy piece by a step (Olympiad rules).
static bool takes(char attacker, char target) {
    char a = char(std::toupper(attacker)), t = char(std::toupper(target));
    if (a == 'C') return false;  // a cannon captures only by jumping
    if (a == 'K' && t == 'P') return false;
    if (a == 'P') return t == 'P' || t == 'K';
    return ORDER.find(a) <= ORDER.find(t);
}

static const int STEPS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static std::vector<Move> legal_moves(const std::string& board, const std::string& colour) {
    std::vector<Move> moves;
    for (int sq = 0; sq < 32; ++sq)
        if (board[sq] == 'X') moves.emplace_back(sq, sq);
    if (colour != "red" && colour != "black") return moves;  // before the first flip
    for (int sq = 0; sq < 32; ++sq) {
        char piece = board[sq];
        if (!own(piece, colour)) continue;
        for (const auto& step : STEPS) {
            int f = sq % 4 + step[0], r = sq / 4 + step[1];
            if (f < 0 || f > 3 || r < 0 || r > 7) continue;
            int to = r * 4 + f;
            char there = board[to];
            if (there == '-' || (there != 'X' && !own(there, colour) && takes(piece, there)))
                moves.emplace_back(sq, to);
        }
        if (std::toupper(piece) != 'C') continue;
        for (const auto& step : STEPS) {  // jump exactly one screen, any distance
            int screens = 0;
            for (int f = sq % 4 + step[0], r = sq / 4 + step[1]; f >= 0 && f < 4 && r >= 0 && r < 8;
                 f += step[0], r += step[1]) {
                char there = board[r * 4 + f];
                if (there == '-') continue;
                if (++screens == 2) {
                    if (there != 'X' && !own(there, colour)) moves.emplace_back(sq, r * 4 + f);
                    break;
                }
            }
        }
    }
    return moves;
}

// Pick one legal move: here the biggest capture, else a random move.
static Move choose_move(const std::string& board, const std::string& colour,
                        const std::vector<Move>& moves, long time_left_ms, std::mt19937& rng) {
    (void)colour;
    (void)time_left_ms;
    const std::string values = "PNRMGK";  // low to high; a cannon counts as a minister
    int best = -1;
    Move chosen = moves[std::uniform_int_distribution<size_t>(0, moves.size() - 1)(rng)];
    for (const auto& move : moves) {
        char there = board[move.second];
        if (move.first == move.second || there == '-') continue;
        char t = char(std::toupper(there));
        int value = t == 'C' ? 3 : int(values.find(t));
        if (value > best) best = value, chosen = move;
    }
    return chosen;
}

static const char* COMMANDS[] = {
    "protocol_version", "name",      "version",           "known_command", "list_commands",
    "quit",             "boardsize", "reset_board",       "num_repetition", "num_moves_to_draw",
    "move",             "flip",      "genmove",           "game_over",     "ready",
    "time_settings",    "time_left", "showboard"};

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937 rng(std::random_device{}());
    std::string board(32, 'X');
    long clock[2] = {900000, 900000};  // red, black
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string id_word, name;
        if (!(in >> id_word >> name) || id_word.find_first_not_of("0123456789") != std::string::npos)
            continue;  // not a command: ignore it
        int id = std::atoi(id_word.c_str());
        std::vector<std::string> args;
        for (std::string word; in >> word;) args.push_back(word);
        std::string payload;
        bool ok = true;
        switch (id) {
            case 0: payload = "1.1.0"; break;                       // protocol_version
            case 1: payload = "starter-bot"; break;                 // name
            case 2: payload = "1.0"; break;                         // version
            case 3: {                                               // known_command <name>
                payload = "false";
                for (const char* c : COMMANDS)
                    if (!args.empty() && args[0] == c) payload = "true";
                break;
            }
            case 4:                                                 // list_commands
                for (const char* c : COMMANDS) payload += (payload.empty() ? "" : "\n") + std::string(c);
                break;
            case 7: board.assign(32, 'X'); break;                   // reset_board
            case 10: {                                              // move <from> <to>
                int frm = args.size() == 2 ? index_of(args[0]) : -1;
                int to = args.size() == 2 ? index_of(args[1]) : -1;
                if (frm < 0 || to < 0) { ok = false, payload = "bad squares"; break; }
                board[to] = board[frm], board[frm] = '-';
                break;
            }
            case 11: {                                              // flip <square> <piece>
                int sq = args.size() == 2 ? index_of(args[0]) : -1;
                if (sq < 0 || args[1].size() != 1) { ok = false, payload = "bad flip"; break; }
                board[sq] = args[1][0];
                break;
            }
            case 12: {                                              // genmove red|black|unknown
                std::string colour = args.empty() ? "unknown" : args[0];
                std::vector<Move> moves = legal_moves(board, colour);
                if (moves.empty()) { ok = false, payload = "no legal move"; break; }
                Move m = choose_move(board, colour, moves, clock[colour == "black"], rng);
                payload = name_of(m.first) + " " + name_of(m.second);  // "a0 a0" resigns
                break;
            }
            case 15:                                                // time_settings <ms>
                if (!args.empty()) clock[0] = clock[1] = std::atol(args[0].c_str());
                break;
            case 16:                                                // time_left <colour> <ms>
                if (args.size() == 2) clock[args[0] == "black"] = std::atol(args[1].c_str());
                break;
            case 17: std::cerr << board << std::endl; break;        // showboard, on stderr
            case 5: case 6: case 8: case 9: case 13: case 14: break;
            default: ok = false, payload = "unknown command";
        }
        std::cout << (ok ? "=" : "?") << id << (payload.empty() ? "" : " " + payload) << std::endl;
        if (id == 5) return 0;  // quit: answered, then exit
    }
    return 0;
}
