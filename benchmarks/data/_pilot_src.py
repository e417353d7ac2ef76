"""Source of benchmarks/data/pilot_physics.json: questions, criteria, answers, gold labels.

Written by the rubricjudge developers for the judge-agreement benchmark (MIT, like the
project). Each answer is labelled per criterion; penalties are faults: MET means the
answer commits it.
"""

Q = []


def q(qid, question, criteria, penalty, answers):
    Q.append(dict(id=qid, question=question, criteria=criteria, penalty=penalty, answers=answers))


q(
    "ball_drop",
    "A ball is dropped from a 20 m tall building. Explain how fast it is going just before it hits the ground.",
    [
        "Uses conservation of energy or a kinematics equation to find the speed",
        "Gives a final speed of about 20 m/s (19.8 m/s)",
        "States that air resistance is ignored or negligible",
    ],
    "Claims that the speed depends on the mass of the ball",
    [
        (
            "I used conservation of mechanical energy: mgh = 1/2 mv^2, so v = sqrt(2gh) = sqrt(2*9.8*20) which is about 19.8 m/s. I ignored air resistance.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "all the potential energy turns into kinetic so v = root(2 x 9.8 x 20) = 19.8 m/s",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "A heavier ball would fall faster so it depends how heavy it is, but roughly 10 m/s.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Using v^2 = u^2 + 2as with u = 0, a = 9.8 and s = 20 i get v = 19.8 m/s. no drag assumed",
            ["MET", "MET", "MET", "UNMET"],
        ),
        ("Buildings are usually made of concrete and steel.", ["UNMET", "UNMET", "UNMET", "UNMET"]),
    ],
)

q(
    "block_friction",
    "A block slides across a rough floor and comes to a stop. Explain where its kinetic energy went.",
    [
        "Identifies friction as the force that slows the block",
        "States that the kinetic energy is converted into thermal energy (heat)",
        "States that total energy is conserved",
    ],
    "Claims that the energy is destroyed or disappears",
    [
        (
            "Friction between the block and the floor does negative work, turning the kinetic energy into heat in the block and floor. The total energy stays the same, it just changes form.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the rubbing of the block on the floor makes things warm up, thats where the energy goes",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "The energy is used up and is gone once the block stops.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Friction slows it down. Energy can't be created or destroyed so it has to go somewhere.",
            ["MET", "UNMET", "MET", "UNMET"],
        ),
    ],
)

q(
    "pendulum_period",
    "What happens to the period of a simple pendulum if you make the string four times longer? Explain.",
    [
        "States that the period doubles",
        "Uses or refers to the relation that the period is proportional to the square root of the length",
        "States that the period does not depend on the mass of the bob",
    ],
    "Claims that the period becomes four times longer",
    [
        (
            "T = 2 pi sqrt(L/g). If L is 4 times bigger, sqrt(4) = 2, so the period doubles. The mass doesn't matter.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "it takes twice as long to swing because the period goes with the root of the length",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "Four times longer string means four times longer period since they are proportional.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "A longer pendulum swings more slowly, and a heavier bob would not change that.",
            ["UNMET", "UNMET", "MET", "UNMET"],
        ),
    ],
)

q(
    "circuit_series",
    "Two identical bulbs are connected in series to a battery. One bulb is removed. What happens to the other bulb and why?",
    [
        "States that the other bulb goes out",
        "Explains that the circuit is broken or open so no current can flow",
        "Mentions that in a series circuit there is only one path for the current",
    ],
    "Claims that the remaining bulb becomes brighter",
    [
        (
            "The other bulb goes off because removing one bulb opens the circuit. In series there is only one path, so no current flows anywhere.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "It turns off, theres a gap now so the electrons can't get round",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "The other bulb gets brighter because it gets all the voltage now.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "In series the current has just one route through both bulbs.",
            ["UNMET", "UNMET", "MET", "UNMET"],
        ),
    ],
)

q(
    "newton_third",
    "You push against a wall and you do not move. Use Newton's third law to explain the forces involved.",
    [
        "States that the wall pushes back on you with an equal force",
        "States that the two forces are in opposite directions",
        "States that the two forces act on different objects",
    ],
    "Claims that the forces cancel because they act on the same object",
    [
        (
            "When I push the wall, the wall pushes back on me with the same size force in the opposite direction. These forces act on different objects: one on the wall, one on me.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the wall pushes me back just as hard, but the other way",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "The push and the wall's force are both on the wall so they cancel out and nothing moves.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Walls are strong and heavy so they don't move when you push them.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "density_float",
    "Why does a steel ship float even though steel is denser than water?",
    [
        "States that the ship's hollow shape makes its average density less than that of water",
        "Mentions the buoyant force or upthrust from the water",
        "States that the ship displaces a weight of water equal to its own weight",
    ],
    "Claims that steel is lighter than water",
    [
        (
            "The ship is hollow and full of air, so its overall density is less than water. It pushes aside (displaces) water equal to its weight, and the upthrust balances its weight.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "because of all the air inside, the boat as a whole is less dense than the sea",
            ["MET", "UNMET", "UNMET", "UNMET"],
        ),
        ("Steel is actually lighter than water, so it floats.", ["UNMET", "UNMET", "UNMET", "MET"]),
        (
            "The water pushes up on the bottom of the hull with a buoyancy force.",
            ["UNMET", "MET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "sound_vacuum",
    "Can sound travel through outer space? Explain.",
    [
        "States that sound cannot travel through space",
        "Explains that sound needs a medium (particles) to travel through",
        "Explains that space is (almost) a vacuum with no air particles",
    ],
    "Claims that sound travels faster in a vacuum",
    [
        (
            "No. Sound is a vibration passed between particles, so it needs a medium. Space is nearly a vacuum with almost no particles, so sound can't travel there.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "nope, theres no air up there for the vibrations to go through",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "Yes, sound travels even faster in a vacuum because nothing slows it down.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Sound is a longitudinal wave made of compressions and rarefactions.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "photosynthesis",
    "Explain what plants need for photosynthesis and what they make.",
    [
        "Names carbon dioxide and water as the inputs",
        "Names light (sunlight) as the energy source",
        "Names glucose (sugar) and oxygen as the products",
    ],
    "Claims that plants take in oxygen to make their food",
    [
        (
            "Plants use sunlight to turn carbon dioxide and water into glucose and oxygen, in the chloroplasts.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "they need CO2 from the air and water from the roots, plus light, and they make sugar",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "Plants breathe in oxygen and use it with soil nutrients to make their food.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("Light energy is captured by chlorophyll.", ["UNMET", "MET", "UNMET", "UNMET"]),
    ],
)

q(
    "ice_melting",
    "Ice at 0 °C is heated and melts. Why does its temperature stay at 0 °C while it melts?",
    [
        "States that the energy is used to break the bonds or forces between the molecules",
        "Mentions latent heat (of fusion)",
        "States that the kinetic energy of the particles does not increase during melting",
    ],
    "Claims that the thermometer is broken or that no energy is being added",
    [
        (
            "The heat supplied is latent heat of fusion: it breaks the bonds holding the molecules in the solid, so it doesn't increase their kinetic energy and the temperature stays at 0 °C.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the energy goes into pulling the molecules apart instead of making them move faster",
            ["MET", "UNMET", "MET", "UNMET"],
        ),
        (
            "No energy is going in while it melts, that's why the temperature doesn't change.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("It's called latent heat.", ["UNMET", "MET", "UNMET", "UNMET"]),
    ],
)

q(
    "momentum_collision",
    "A 2 kg cart moving at 3 m/s hits a stationary 1 kg cart and they stick together. Find their speed after the collision.",
    [
        "Uses conservation of momentum",
        "Gives a final speed of 2 m/s",
        "Correctly computes the initial momentum as 6 kg m/s",
    ],
    "Claims that kinetic energy is conserved in this collision",
    [
        (
            "Momentum is conserved: 2 x 3 = 6 kg m/s before. After, (2+1) v = 6 so v = 2 m/s.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "total p before = 6, after they move together with mass 3 so speed is 2",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "Kinetic energy is conserved, so 1/2 x 2 x 9 = 1/2 x 3 x v^2, v = 2.45 m/s.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "The carts stick so it's an inelastic collision and they slow down.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "refraction",
    "Why does a straw in a glass of water look bent?",
    [
        "States that light changes direction (refracts) when it passes between water and air",
        "Explains that light travels at a different speed in water than in air",
        "States that the brain or eye assumes light travels in straight lines",
    ],
    "Claims that the straw is actually bent by the water",
    [
        (
            "Light from the straw refracts as it goes from water into air because it speeds up, changing direction. Our brain assumes light travels in straight lines, so the straw looks bent.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the light bends when it leaves the water which makes it look broken",
            ["MET", "UNMET", "UNMET", "UNMET"],
        ),
        ("The water pressure bends the straw a little.", ["UNMET", "UNMET", "UNMET", "MET"]),
        ("Light goes slower in water than in air.", ["UNMET", "MET", "UNMET", "UNMET"]),
    ],
)

q(
    "seasons",
    "What causes the seasons on Earth?",
    [
        "States that the Earth's axis is tilted",
        "Explains that the tilt changes how directly sunlight hits each hemisphere (angle or intensity)",
        "Mentions that the hemisphere tilted towards the Sun has summer",
    ],
    "Claims that the seasons are caused by the Earth being closer to or farther from the Sun",
    [
        (
            "Earth's axis is tilted about 23.5 degrees, so during the year each hemisphere gets sunlight more directly or more slanted. When your hemisphere leans toward the Sun it's summer.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "because the earth is on a slant, the sun's rays hit us at a steeper angle in summer",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "In summer the Earth is closer to the Sun, so it's hotter.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("The Earth goes round the Sun once every year.", ["UNMET", "UNMET", "UNMET", "UNMET"]),
    ],
)
